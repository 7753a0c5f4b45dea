import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { TestOAuthClient } from '../helpers/oauth';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const PASSWORD = 'correct horse battery';
const mcpUrl = () => new URL(`${server.url}/mcp`);

async function connectWith(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** Runs the SDK's auth(): registration, the browser round trip (TestOAuthClient), then the code exchange. */
async function authorize(provider: TestOAuthClient, scope?: string): Promise<string> {
  expect(await auth(provider, { serverUrl: mcpUrl(), scope })).toBe('REDIRECT');
  expect(provider.code).toEqual(expect.any(String));
  expect(await auth(provider, { serverUrl: mcpUrl(), authorizationCode: provider.code!, scope })).toBe('AUTHORIZED');
  return provider.tokens()!.access_token;
}

describe('MCP authorization (OAuth 2.1, docs/mcp.md)', () => {
  it('answers /mcp without a token with 401 and a WWW-Authenticate challenge naming the protected-resource metadata', async () => {
    const res = await server.rest.post('/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    const bad = await server.rest.post('/mcp', {
      token: 'bwu_unknown',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
  });

  it('publishes protected-resource and authorization-server metadata with PKCE, registration and the two scopes', async () => {
    const resource = await server.rest.get('/.well-known/oauth-protected-resource');
    expect(resource.status).toBe(200);
    expect(resource.body).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [`${server.url}/`], scopes_supported: ['read', 'write'] });
    const pathSpecific = await server.rest.get('/.well-known/oauth-protected-resource/mcp');
    expect(pathSpecific.body).toEqual(resource.body);
    const as = await server.rest.get('/.well-known/oauth-authorization-server');
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: `${server.url}/`,
      authorization_endpoint: `${server.url}/authorize`,
      token_endpoint: `${server.url}/token`,
      registration_endpoint: `${server.url}/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
  });

  it('lets a standard MCP client connect without a pasted token: 401, discovery, registration, sign-in, PKCE code exchange, then tools', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    const provider = new TestOAuthClient({ username: user.username, password: PASSWORD });
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    // The transport meets the 401, runs the SDK's auth() and sends the "browser" to the sign-in page.
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.consent?.pageStatus).toBe(200);
    expect(provider.consent?.submitStatus).toBe(302);
    expect(provider.code).toEqual(expect.any(String));
    await transport.finishAuth(provider.code!);
    expect(provider.tokens()).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'write', expires_in: expect.any(Number) });

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const started = await client.callTool({ name: 'tool_operation_start', arguments: { tool_type: 'create', params: { description: 'made over OAuth' } } });
    expect(started.isError).toBeFalsy();
    expect((started.structuredContent as any).total_steps).toBe(5);
    await client.close();

    // The token belongs to the person who signed in and is listed (and revocable) on their account.
    const tokens = await server.rest.get('/api/account/tokens', { token: user.token });
    const listed = tokens.body.items.find((t: any) => t.name === 'OAuth: Test MCP client');
    expect(listed).toMatchObject({ scope: 'write', prefix: provider.tokens()!.access_token.slice(0, 8) });
    const viewer = await server.rest.post('/graphql', { token: provider.tokens()!.access_token, body: { query: '{ viewer { id } }' } });
    expect(viewer.body.data.viewer.id).toBe(user.id);
    expect((await server.rest.delete(`/api/account/tokens/${listed.id}`, { token: user.token })).status).toBe(204);
    const after = await server.rest.post('/mcp', {
      token: provider.tokens()!.access_token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(after.status).toBe(401);
  });

  it('grants a read-scope token when the client asks for read only: read tools work, write tools are FORBIDDEN', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    const provider = new TestOAuthClient({ username: user.username, password: PASSWORD }, { client_name: 'Reader' });
    const token = await authorize(provider, 'read');
    expect(provider.tokens()!.scope).toBe('read');
    const client = await connectWith(token);
    const search = await client.callTool({ name: 'registry_search', arguments: {} });
    expect(search.isError).toBeFalsy();
    const write = await client.callTool({ name: 'tool_operation_start', arguments: { tool_type: 'create' } });
    expect(write.isError).toBe(true);
    expect(JSON.parse((write.content as any)[0].text).error.code).toBe('FORBIDDEN');
    await client.close();
  });

  it('issues no code for a wrong password, and tells the client access_denied when the person denies', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    const wrong = new TestOAuthClient({ username: user.username, password: 'not the password at all' });
    expect(await auth(wrong, { serverUrl: mcpUrl() })).toBe('REDIRECT');
    expect(wrong.consent?.submitStatus).toBe(401);
    expect(wrong.consent?.location).toBeNull();
    expect(wrong.consent?.page).toContain('Wrong username or password');
    const page = await fetch(`${server.url}/oauth/consent`, {
      method: 'POST',
      body: new URLSearchParams({ request: 'forged', decision: 'allow' }),
      redirect: 'manual',
    });
    expect(page.status).toBe(400);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    await page.arrayBuffer();

    const denied = new TestOAuthClient({ username: user.username, password: PASSWORD, decision: 'deny' });
    expect(await auth(denied, { serverUrl: mcpUrl() })).toBe('REDIRECT');
    const back = new URL(denied.consent!.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('spends a code once and checks its PKCE verifier', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    const provider = new TestOAuthClient({ username: user.username, password: PASSWORD });
    await authorize(provider);
    const code = provider.code!;
    const info = provider.clientInformation()!;
    const exchange = (verifier: string) =>
      fetch(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: info.client_id,
          redirect_uri: provider.redirectUrl,
        }),
      });
    const replay = await exchange(provider.codeVerifier());
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');

    const second = new TestOAuthClient({ username: user.username, password: PASSWORD });
    expect(await auth(second, { serverUrl: mcpUrl() })).toBe('REDIRECT');
    const wrongVerifier = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: second.code!,
        code_verifier: 'x'.repeat(50),
        client_id: second.clientInformation()!.client_id,
        redirect_uri: second.redirectUrl,
      }),
    });
    expect(wrongVerifier.status).toBe(400);
    expect(((await wrongVerifier.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('keeps pasted bearer tokens working: an account token and an agent session', async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    for (const token of [await server.rest.accountToken(user.token, 'write'), await server.rest.agentToken()]) {
      const client = await connectWith(token);
      expect((await client.listTools()).tools.length).toBeGreaterThan(40);
      await client.close();
    }
  });
});
