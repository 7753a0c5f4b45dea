import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { CreateAccessTokenDocument, RevokeAccessTokenDocument, ViewerTokensDocument } from '../generated/graphql';
import { TestOAuthClient } from '../helpers/oauth';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 5 (DESIGN.md section 10): only a sign-in session (`bws_`) manages tokens. An account
 * token (`bwu_`, pasted or issued to an OAuth client) and an agent session get 403 on create, list and
 * revoke, over REST and GraphQL, so no token can mint a token that outlives it.
 */
const PASSWORD = 'correct horse battery';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A token issued to an OAuth client through the whole flow (registration, consent, code exchange). */
async function oauthToken(username: string): Promise<string> {
  const provider = new TestOAuthClient({ username, password: PASSWORD });
  const serverUrl = new URL(`${server.url}/mcp`);
  expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
  expect(await auth(provider, { serverUrl, authorizationCode: provider.code! })).toBe('AUTHORIZED');
  return provider.tokens()!.access_token;
}

describe('who manages tokens', () => {
  let signIn: string;
  let victimId: string;
  const others: Record<string, string> = {};

  beforeAll(async () => {
    const user = await server.rest.signUp(undefined, PASSWORD);
    signIn = user.token;
    others['a pasted account token (bwu_)'] = await server.rest.accountToken(signIn, 'write');
    others['a token issued to an OAuth client'] = await oauthToken(user.username);
    others['an agent session (bwa_)'] = await server.rest.agentToken();
    const victim = await server.rest.post('/api/account/tokens', { token: signIn, body: { name: 'victim', scope: 'write' } });
    victimId = victim.body.id;
  });

  it('lets a sign-in session create, list and revoke tokens', async () => {
    const created = await server.rest.post('/api/account/tokens', { token: signIn, body: { name: 'ok', scope: 'read' } });
    expect(created.status).toBe(201);
    expect((await server.rest.get('/api/account/tokens', { token: signIn })).status).toBe(200);
    expect((await server.rest.delete(`/api/account/tokens/${created.body.id}`, { token: signIn })).status).toBe(204);
    const gql = await server.gql.request(CreateAccessTokenDocument, { name: 'gql', scope: 'READ' as never }, signIn);
    expect(gql.errors).toBeUndefined();
  });

  it.each(['a pasted account token (bwu_)', 'a token issued to an OAuth client', 'an agent session (bwa_)'])(
    'refuses %s on create, list and revoke over REST (403) and changes nothing',
    async (which) => {
      const token = others[which]!;
      const create = await server.rest.post('/api/account/tokens', { token, body: { name: 'child', scope: 'write' } });
      expect(create.status).toBe(403);
      expect(create.body.error.code).toBe('FORBIDDEN');
      expect((await server.rest.get('/api/account/tokens', { token })).status).toBe(403);
      const revoke = await server.rest.delete(`/api/account/tokens/${victimId}`, { token });
      expect(revoke.status).toBe(403);
      const list = await server.rest.get('/api/account/tokens', { token: signIn });
      expect(list.body.items.map((t: { id: string }) => t.id)).toContain(victimId);
      expect(list.body.items.map((t: { name: string }) => t.name)).not.toContain('child');
    },
  );

  it.each(['a pasted account token (bwu_)', 'a token issued to an OAuth client', 'an agent session (bwa_)'])(
    'refuses %s on createAccessToken, viewer.tokens and revokeAccessToken over GraphQL (FORBIDDEN)',
    async (which) => {
      const token = others[which]!;
      const create = await server.gql.request(CreateAccessTokenDocument, { name: 'child', scope: 'WRITE' as never }, token);
      expect(create.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const list = await server.gql.request(ViewerTokensDocument, {}, token);
      expect(list.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const revoke = await server.gql.request(RevokeAccessTokenDocument, { id: victimId }, token);
      expect(revoke.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const names = (await server.rest.get('/api/account/tokens', { token: signIn })).body.items.map((t: { id: string }) => t.id);
      expect(names).toContain(victimId);
    },
  );
});
