import { ensureWebBuilt } from '../helpers/web-build';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Browser-facing security headers: the console's pages carry a whole Content-Security-Policy (scripts
 * only from this origin, no framing); every other answer (GraphiQL, Swagger UI, the OAuth pages, the
 * JSON API, errors) forbids framing and sniffing and sends no referrer. The console still working under
 * its policy is shown by the browser tests (test/browser/console.test.ts records any CSP violation as a
 * console error).
 */
jest.setTimeout(180_000);

let server: TestServer;

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
});
afterAll(() => server?.close());

async function headersOf(path: string, init: RequestInit = {}): Promise<Headers> {
  const res = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
  await res.arrayBuffer();
  return res.headers;
}

function expectCommon(path: string, h: Headers): void {
  expect({ path, nosniff: h.get('x-content-type-options'), referrer: h.get('referrer-policy'), frame: h.get('x-frame-options') }).toEqual({
    path,
    nosniff: 'nosniff',
    referrer: 'no-referrer',
    frame: 'DENY',
  });
  expect({ path, csp: h.get('content-security-policy') }).toEqual({ path, csp: expect.stringContaining("frame-ancestors 'none'") });
}

it('gives the console pages a policy that allows scripts only from this origin', async () => {
  const html = await (await fetch(server.url)).text();
  const bundle = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(bundle).toBeDefined();
  for (const path of ['/', '/registry', '/blueprints/some-slug', '/nope']) {
    const h = await headersOf(path);
    expectCommon(path, h);
    const csp = h.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  }
  expectCommon(bundle!, await headersOf(bundle!));
});

it('forbids framing and sniffing on GraphiQL, Swagger UI, the OAuth pages, the API and its errors', async () => {
  const pages: Array<[string, RequestInit?]> = [
    ['/graphql', { headers: { accept: 'text/html' } }],
    ['/docs/'],
    ['/docs/static/index.html'],
    ['/authorize?client_id=nope&redirect_uri=http://127.0.0.1:9/cb'],
    ['/.well-known/oauth-authorization-server'],
    ['/api/registry'],
    ['/api/nope'],
    ['/healthz'],
    ['/openapi.json'],
    ['/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }],
  ];
  for (const [path, init] of pages) expectCommon(path, await headersOf(path, init));
});
