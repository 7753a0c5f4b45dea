import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { CreateAccessTokenDocument, RevokeAccessTokenDocument, ViewerTokensDocument } from '../generated/graphql';
import { TestOAuthClient } from '../helpers/oauth';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 5 (docs/accounts.md): only a sign-in session (`bws_`) manages tokens. An account
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

/**
 * Issue 24 finding 6: free tokens must not multiply limits. Tokens per account are capped
 * (`accountTokensMax`), and the rate-limit bucket is the account's (a person) or the address's (agents,
 * anonymous callers), never the token's.
 */
describe('tokens per account are capped', () => {
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ limits: { accountTokensMax: 3 } });
  });
  afterAll(() => capped?.close());

  it('refuses a token past the cap with 409 over REST and GraphQL, writes nothing, and allows one again after a revoke', async () => {
    const user = await capped.rest.signUp(undefined, PASSWORD);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await capped.rest.post('/api/account/tokens', { token: user.token, body: { name: `t${i}`, scope: 'read' } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const over = await capped.rest.post('/api/account/tokens', { token: user.token, body: { name: 'one too many', scope: 'read' } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'CONFLICT', details: { max_tokens: 3 } });
    const gql = await capped.gql.request(CreateAccessTokenDocument, { name: 'one too many', scope: 'READ' as never }, user.token);
    expect(gql.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect((await capped.rest.get('/api/account/tokens', { token: user.token })).body.total).toBe(3);
    expect((await capped.rest.delete(`/api/account/tokens/${ids[0]}`, { token: user.token })).status).toBe(204);
    expect((await capped.rest.post('/api/account/tokens', { token: user.token, body: { name: 'again', scope: 'read' } })).status).toBe(201);
  });

  it('holds concurrent creations to the cap', async () => {
    const user = await capped.rest.signUp(undefined, PASSWORD);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => capped.rest.post('/api/account/tokens', { token: user.token, body: { name: `c${i}`, scope: 'read' } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
  });

  it('refuses the OAuth code exchange at the cap with invalid_grant (no 500, no token)', async () => {
    const user = await capped.rest.signUp(undefined, PASSWORD);
    for (let i = 0; i < 3; i++) await capped.rest.accountToken(user.token, 'read', `t${i}`);
    const provider = new TestOAuthClient({ username: user.username, password: PASSWORD });
    const serverUrl = new URL(`${capped.url}/mcp`);
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    await expect(auth(provider, { serverUrl, authorizationCode: provider.code! })).rejects.toThrow(/most|cap|revoke/i);
    expect((await capped.rest.get('/api/account/tokens', { token: user.token })).body.total).toBe(3);
  });
});

describe('rate limits count per account, not per token', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ limits: { rateLimitPerMinute: 8 } });
  });
  afterAll(() => limited?.close());

  it("spends one budget for all of a person's tokens, over REST and GraphQL", async () => {
    const user = await limited.rest.signUp(undefined, PASSWORD); // anonymous: the address's bucket
    const a = await limited.rest.accountToken(user.token, 'read', 'a'); // 1
    const b = await limited.rest.accountToken(user.token, 'read', 'b'); // 2
    for (let i = 0; i < 3; i++) expect((await limited.rest.get('/api/inbox', { token: a })).status).toBe(200); // 5
    for (let i = 0; i < 3; i++) expect((await limited.rest.get('/api/inbox', { token: b })).status).toBe(200); // 8
    const refused = await limited.rest.get('/api/inbox', { token: b });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect((await limited.gql.request('{ viewer { id } }', undefined, user.token)).status).toBe(429);
    // Another person has their own budget.
    const other = await limited.rest.signUp(undefined, PASSWORD);
    expect((await limited.rest.get('/api/inbox', { token: other.token })).status).toBe(200);
  });

  it('spends one budget for all agent sessions from one address', async () => {
    const agents = await Promise.all([limited.rest.agentToken('one'), limited.rest.agentToken('two')]);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await limited.rest.get('/api/inbox', { token: agents[i % 2] })).status);
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(8)).toEqual([429, 429]);
  });
});
