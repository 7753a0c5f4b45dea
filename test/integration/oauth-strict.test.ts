import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server';
import { statusOf } from '../helpers/rest';

/**
 * Issue 24, the OAuth findings: the `resource` parameter compared as a canonical URI (RFC 8707, #4),
 * a replayed authorization code revoking what it issued (OAuth 2.1, #13).
 */
const PASSWORD = 'correct horse battery';
const REDIRECT = 'http://127.0.0.1:9/callback';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

async function registerClient(base: string): Promise<string> {
  const res = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'strict',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** GET /authorize with the given resource: the consent page (200) or the redirect back with an error. */
async function authorizeWith(base: string, clientId: string, resource: string | undefined, challenge = pkce().challenge): Promise<Response> {
  const url = new URL(`${base}/authorize`);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  if (resource !== undefined) params.resource = resource;
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual' });
}

/** The whole flow by hand: authorize, sign in on the consent form, exchange the code. */
async function codeFor(base: string, username: string, resource?: string): Promise<{ code: string; verifier: string; clientId: string }> {
  const clientId = await registerClient(base);
  const { verifier, challenge } = pkce();
  const page = await authorizeWith(base, clientId, resource, challenge);
  expect(page.status).toBe(200);
  const request = /name="request" value="([^"]+)"/.exec(await page.text())![1]!;
  const submit = await fetch(`${base}/oauth/consent`, {
    method: 'POST',
    body: new URLSearchParams({ request, username, password: PASSWORD, decision: 'allow' }),
    redirect: 'manual',
  });
  expect(submit.status).toBe(302);
  await submit.arrayBuffer();
  return { code: new URL(submit.headers.get('location')!).searchParams.get('code')!, verifier, clientId };
}

function exchange(base: string, grant: { code: string; verifier: string; clientId: string }, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      code_verifier: grant.verifier,
      client_id: grant.clientId,
      redirect_uri: REDIRECT,
      ...extra,
    }),
  });
}

describe('the resource parameter (RFC 8707): canonical URIs compared exactly', () => {
  let publicServer: TestServer;
  beforeAll(async () => {
    publicServer = await startTestServer({ publicUrl: 'http://localhost' });
  });
  afterAll(() => publicServer?.close());

  it('refuses resources that merely start with the service URL, and accepts the canonical /mcp', async () => {
    // PUBLIC_URL names the origin; the test reaches the server on its real address.
    const clientId = await registerClient(publicServer.url);
    for (const resource of [
      'http://localhost.evil.example/mcp',
      'http://localhost@evil.example/mcp',
      'http://localhost:80@evil.example/mcp',
      'http://localhost/mcpx',
      'http://localhost/mcp/other',
      'http://localhost:8080/mcp',
      'https://localhost/mcp',
      'http://localhost/mcp?x=1',
    ]) {
      const res = await authorizeWith(publicServer.url, clientId, resource);
      expect({ resource, status: res.status }).toEqual({ resource, status: 302 });
      expect({ resource, error: new URL(res.headers.get('location')!).searchParams.get('error') }).toEqual({ resource, error: 'invalid_target' });
    }
    for (const resource of [undefined, 'http://localhost/mcp', 'HTTP://LOCALHOST:80/mcp', 'http://localhost/mcp/']) {
      const res = await authorizeWith(publicServer.url, clientId, resource);
      expect({ resource, status: res.status }).toEqual({ resource, status: 200 });
    }
  });

  it('refuses a token request whose resource differs from the authorized one', async () => {
    const user = await publicServer.rest.signUp(undefined, PASSWORD);
    const grant = await codeFor(publicServer.url, user.username, 'http://localhost/mcp');
    const res = await exchange(publicServer.url, grant, { resource: 'http://localhost.evil.example/mcp' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_target');
  });
});

/** A request with its own Host header (fetch cannot set one). */
function withHost(base: string, method: string, path: string, host: string, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const headers: Record<string, string> = {
      host,
      ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
    };
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('client registration: one limiter whatever the Host (issue 24 #7)', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ limits: { sessionCreatesPerHour: 3 } });
  });
  afterAll(() => limited?.close());

  const metadata = JSON.stringify({ client_name: 'h', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });

  it('counts registrations per IP across Hosts, refuses unknown Hosts, and bounds the body', async () => {
    const port = new URL(limited.url).port;
    expect((await withHost(limited.url, 'POST', '/register', 'evil.example', metadata)).status).toBe(400);
    const tooBig = JSON.stringify({ client_name: 'x'.repeat(20_000), redirect_uris: [REDIRECT] });
    const big = await withHost(limited.url, 'POST', '/register', `127.0.0.1:${port}`, tooBig);
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const statuses: number[] = [];
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, 'localhost:1', 'localhost'])
      statuses.push((await withHost(limited.url, 'POST', '/register', host, metadata)).status);
    // Every attempt counts, the oversize one above too: two more fit in the hour, whatever the Host.
    expect(statuses).toEqual([201, 201, 429, 429, 429, 429]);
  });

  it('maps any Host to PUBLIC_URL when it is set', async () => {
    const mapped = await startTestServer({ publicUrl: 'https://blueprints.example.com' });
    try {
      const res = await withHost(mapped.url, 'GET', '/.well-known/oauth-authorization-server', 'evil.example');
      expect(res.status).toBe(200);
      expect(res.body.issuer).toBe('https://blueprints.example.com/');
    } finally {
      await mapped.close();
    }
  });

  it('puts the OAuth paths behind the general per-IP rate limit', async () => {
    const tight = await startTestServer({ limits: { rateLimitPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await statusOf(`${tight.url}/.well-known/oauth-authorization-server`));
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await tight.close();
    }
  });
});

describe('a replayed authorization code (OAuth 2.1, issue 24 #13)', () => {
  it('is refused and revokes the token issued from it', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    const grant = await codeFor(server.url, user.username);
    const first = await exchange(server.url, grant);
    expect(first.status).toBe(200);
    const token = ((await first.json()) as { access_token: string }).access_token;
    expect((await server.rest.get('/api/registry', { token })).status).toBe(200);
    const replay = await exchange(server.url, grant);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await server.rest.get('/api/registry', { token })).status).toBe(401);
  });
});
