import { ensureWebBuilt } from '../helpers/web-build';
import { startTestServer, type TestServer } from '../helpers/server';

jest.setTimeout(180_000);

let server: TestServer;

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('the web console at /', () => {
  it('serves the page at / and at client routes, with no-cache', async () => {
    for (const path of [
      '/',
      '/blueprints/some-slug',
      '/architectures/x?zoom=2',
      '/inbox',
      '/registry?q=pay',
      '/teams',
      '/teams/x',
      '/users/ada',
      '/account',
      '/import',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root"></div>');
    }
  });

  it('serves its hashed bundles as immutable, and loads nothing from another host', async () => {
    const html = await (await fetch(server.url)).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset.startsWith('/assets/')).toBe(true);
      const res = await fetch(`${server.url}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      // Read to the end: an unread body keeps its socket open past the suite (Jest's worker then cannot exit).
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('never shadows the API: unknown API paths stay JSON 404s, and /healthz and /graphql answer as before', async () => {
    for (const path of ['/api/nope', '/api', '/mcp/x', '/graphql/x', '/healthz/x']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', backplane: { name: 'postgres', state: 'up' } });
    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(((await gql.json()) as { data: unknown }).data).toEqual({ __typename: 'Query' });
  });

  it('answers an unknown page path with the page (which shows its not-found page) and status 404', async () => {
    for (const path of ['/nope', '/blueprint']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(await res.text()).toContain('<div id="root"></div>');
    }
  });

  it('answers 404 for a missing file rather than the page, and refuses paths out of web/dist', async () => {
    for (const path of ['/assets/missing-123.js', '/favicon.ico']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    }
    for (const path of ['/..%2f..%2fpackage.json', '/assets/..%2f..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/package.json']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('blueprint-workshop');
    }
  });
});
