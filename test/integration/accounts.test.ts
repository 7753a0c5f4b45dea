import {
  BlueprintActivityDocument,
  ClaimAgentSessionDocument,
  CreateAccessTokenDocument,
  RevokeAccessTokenDocument,
  SignInDocument,
  SignOutDocument,
  SignUpDocument,
  ViewerDocument,
  ViewerTokensDocument,
} from '../generated/graphql';
import { createBlueprint } from '../fixtures/blueprints';
import { mcpClient, toolBody } from '../helpers/mcp-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';
import { connectWs, type WsClient } from '../helpers/ws';
import { liveMark } from '../helpers/live';

const DAY_MS = 24 * 60 * 60 * 1000;
const PASSWORD = 'correct horse battery';

let server: TestServer;
let sql: SqlClient;
const sockets: WsClient[] = [];
beforeAll(async () => {
  server = await startTestServer({ limits: { signInFailuresPerUsername: 3, signInFailuresPerIp: 1000 } });
  sql = await SqlClient.connect(server.databaseUrl);
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await sql.close();
  await server.close();
});

const uniqueName = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;

describe('sign-up and sign-in', () => {
  it('signs up with 201 {user_id, username, token, expires_at}: a bws_ token for 14 days, an argon2id hash stored', async () => {
    const username = uniqueName('ada');
    const before = Date.now();
    const res = await server.rest.post('/api/auth/signup', { body: { username, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'token', 'user_id', 'username']);
    expect(res.body.token).toMatch(/^bws_[A-Za-z0-9_-]{43}$/);
    expect(res.body.username).toBe(username);
    const expiresAt = Date.parse(res.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 14 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 14 * DAY_MS + 1000);
    const [row] = await sql.query('select password_hash from principal where id = $1', [res.body.user_id]);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
    expect(row!.password_hash).not.toContain(PASSWORD);
    const viewer = await server.gql.ok(ViewerDocument, {}, res.body.token);
    expect(viewer.viewer).toEqual({ id: res.body.user_id, kind: 'USER', name: username });
  });

  it('refuses a taken username with 409, and bad usernames or passwords with 400, writing nothing', async () => {
    const username = uniqueName('taken');
    expect((await server.rest.post('/api/auth/signup', { body: { username, password: PASSWORD } })).status).toBe(201);
    const again = await server.rest.post('/api/auth/signup', { body: { username, password: PASSWORD } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const users = await sql.count('principal');
    for (const body of [
      { username: 'ab', password: PASSWORD },
      { username: 'Upper-Case', password: PASSWORD },
      { username: 'has space', password: PASSWORD },
      { username: uniqueName('short'), password: 'too short' },
      { username: uniqueName('long'), password: 'x'.repeat(201) },
      { username: uniqueName('extra'), password: PASSWORD, admin: true },
      {},
    ]) {
      const res = await server.rest.post('/api/auth/signup', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect(await sql.count('principal')).toBe(users);
  });

  it('signs in with the right password; a wrong password and an unknown username get the same 401', async () => {
    const user = await server.rest.signUp(uniqueName('grace'));
    const ok = await server.rest.post('/api/auth/login', { body: { username: user.username, password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ user_id: user.id, username: user.username, token: expect.stringMatching(/^bws_/), expires_at: expect.any(String) });
    expect(ok.body.token).not.toBe(user.token);
    const wrongPassword = await server.rest.post('/api/auth/login', { body: { username: user.username, password: 'not the password!' } });
    const unknownUser = await server.rest.post('/api/auth/login', { body: { username: uniqueName('nobody'), password: PASSWORD } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownUser.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownUser.body);
    expect(wrongPassword.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('rate limits failed sign-ins per username with 429 and Retry-After, even for the right password', async () => {
    const user = await server.rest.signUp(uniqueName('target'));
    for (let i = 0; i < 3; i++)
      expect((await server.rest.post('/api/auth/login', { body: { username: user.username, password: `wrong password ${i}` } })).status).toBe(401);
    const limited = await server.rest.post('/api/auth/login', { body: { username: user.username, password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another username from the same address is not affected by this one's failures.
    const other = await server.rest.signUp(uniqueName('bystander'));
    expect((await server.rest.post('/api/auth/login', { body: { username: other.username, password: PASSWORD } })).status).toBe(200);
    // Once the failures are older than the window, the right password works again.
    await sql.query(`update sign_in_failure set at = at - interval '1 hour' where username = $1`, [user.username]);
    expect((await server.rest.post('/api/auth/login', { body: { username: user.username, password: PASSWORD } })).status).toBe(200);
  });

  it('rate limits failed sign-ins per IP address across usernames', async () => {
    const limited = await startTestServer({ limits: { signInFailuresPerUsername: 100, signInFailuresPerIp: 2 } });
    try {
      for (const name of ['first-guess', 'second-guess'])
        expect((await limited.rest.post('/api/auth/login', { body: { username: name, password: PASSWORD } })).status).toBe(401);
      const third = await limited.rest.post('/api/auth/login', { body: { username: 'third-guess', password: PASSWORD } });
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('signs out: the sign-in token stops working; other token kinds cannot sign out (400)', async () => {
    const user = await server.rest.signUp(uniqueName('leaver'));
    const write = await server.rest.accountToken(user.token, 'write');
    expect((await server.rest.delete('/api/auth/session', { token: write })).status).toBe(400);
    expect((await server.rest.delete('/api/auth/session', { token: await server.rest.agentToken() })).status).toBe(400);
    expect((await server.rest.delete('/api/auth/session', { token: user.token })).status).toBe(204);
    expect((await server.rest.get('/api/account/tokens', { token: user.token })).status).toBe(401);
    expect((await server.rest.get('/api/registry', { token: write })).status).toBe(200);
  });

  it('ends an agent session with DELETE /api/agent/sessions/current, and refuses other token kinds with 400', async () => {
    const user = await server.rest.signUp(uniqueName('keeps-token'));
    const write = await server.rest.accountToken(user.token, 'write');
    for (const token of [user.token, write]) {
      const res = await server.rest.delete('/api/agent/sessions/current', { token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect((await server.rest.get('/api/registry', { token })).status).toBe(200);
    }
    const agent = await server.rest.agentToken();
    expect((await server.rest.delete('/api/agent/sessions/current', { token: agent })).status).toBe(204);
    expect((await server.rest.get('/api/registry', { token: agent })).status).toBe(401);
  });
});

describe('account tokens (the MCP setup page)', () => {
  it('creates, lists (with last_used_at, no secret) and revokes tokens; revocation is immediate', async () => {
    const user = await server.rest.signUp(uniqueName('tokens'));
    const created = await server.rest.post('/api/account/tokens', { token: user.token, body: { name: 'Claude Desktop', scope: 'read', expires_in_days: 30 } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'expires_at', 'id', 'name', 'prefix', 'scope', 'token']);
    expect(created.body.token).toMatch(/^bwu_[A-Za-z0-9_-]{43}$/);
    expect(created.body.token.startsWith(created.body.prefix)).toBe(true);
    expect(Date.parse(created.body.expires_at)).toBeGreaterThan(Date.now() + 29 * DAY_MS);
    const forever = await server.rest.post('/api/account/tokens', { token: user.token, body: { name: 'script', scope: 'write' } });
    expect(forever.body.expires_at).toBeNull();

    let list = await server.rest.get('/api/account/tokens', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: any) => t.name)).toEqual(['script', 'Claude Desktop']);
    expect(list.body.items[1]).toEqual({
      id: created.body.id,
      name: 'Claude Desktop',
      scope: 'read',
      prefix: created.body.prefix,
      created_at: created.body.created_at,
      expires_at: created.body.expires_at,
      last_used_at: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    expect((await server.rest.get('/api/registry', { token: created.body.token })).status).toBe(200);
    list = await server.rest.get('/api/account/tokens', { token: user.token });
    expect(Date.parse(list.body.items[1].last_used_at)).toBeGreaterThan(Date.now() - 60_000);

    expect((await server.rest.delete(`/api/account/tokens/${created.body.id}`, { token: user.token })).status).toBe(204);
    expect((await server.rest.get('/api/registry', { token: created.body.token })).status).toBe(401);
    expect((await server.rest.delete(`/api/account/tokens/${created.body.id}`, { token: user.token })).status).toBe(404);
    list = await server.rest.get('/api/account/tokens', { token: user.token });
    expect(list.body.items.map((t: any) => t.id)).toEqual([forever.body.id]);
  });

  it("refuses agent sessions (403), someone else's token (404) and bad bodies (400)", async () => {
    const agent = await server.rest.agentToken();
    const asAgent = await server.rest.post('/api/account/tokens', { token: agent, body: { name: 'x', scope: 'write' } });
    expect(asAgent.status).toBe(403);
    expect((await server.rest.get('/api/account/tokens', { token: agent })).status).toBe(403);
    const owner = await server.rest.signUp(uniqueName('owner'));
    const other = await server.rest.signUp(uniqueName('other'));
    const token = await server.rest.post('/api/account/tokens', { token: owner.token, body: { name: 'mine', scope: 'write' } });
    expect((await server.rest.delete(`/api/account/tokens/${token.body.id}`, { token: other.token })).status).toBe(404);
    expect((await server.rest.get('/api/registry', { token: token.body.token })).status).toBe(200);
    for (const body of [
      { name: 'x', scope: 'admin' },
      { scope: 'read' },
      { name: 'x', scope: 'read', expires_in_days: 0 },
      { name: 'x', scope: 'read', expires_in_days: 10_000 },
      { name: ' ', scope: 'read' },
    ])
      expect((await server.rest.post('/api/account/tokens', { token: owner.token, body })).status).toBe(400);
  });

  it('refuses every write to a read token with 403, over REST, GraphQL and MCP, and lets it read', async () => {
    const user = await server.rest.signUp(uniqueName('reader'));
    const read = await server.rest.accountToken(user.token, 'read');
    const bp = await createBlueprint(server.rest, user.token, { name: 'Read scope target' });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: read })).status).toBe(200);
    const star = await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: read });
    expect(star.status).toBe(403);
    expect(star.body.error.code).toBe('FORBIDDEN');
    expect((await server.rest.post('/api/account/tokens', { token: read, body: { name: 'escalate', scope: 'write' } })).status).toBe(403);
    const gql = await server.gql.request(CreateAccessTokenDocument, { name: 'escalate', scope: 'WRITE' as never }, read);
    expect(gql.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await server.gql.request('{ viewer { id } }', {}, read)).errors).toBeUndefined();
    const mcp = await mcpClient(server.url, read);
    const fork = await mcp.callTool({ name: 'blueprint_fork', arguments: { blueprint_id: bp.id } });
    expect(fork.isError).toBe(true);
    expect(toolBody(fork).error.code).toBe('FORBIDDEN');
    const get = await mcp.callTool({ name: 'blueprint_get', arguments: { blueprint_id: bp.id } });
    expect(get.isError).toBeFalsy();
    await mcp.close();
    expect(await sql.count('blueprint', 'forked_from_id = $1', [bp.id])).toBe(0);
  });

  it('a revoked token is refused at once on HTTP, on MCP, and on a live WebSocket subscription at its next event', async () => {
    const user = await server.rest.signUp(uniqueName('revoker'));
    const created = await server.rest.post('/api/account/tokens', { token: user.token, body: { name: 'everywhere', scope: 'write' } });
    const token = created.body.token as string;
    const bp = await createBlueprint(server.rest, user.token, { name: 'Watched by an account token' });
    const mcp = await mcpClient(server.url, token);
    expect((await mcp.callTool({ name: 'blueprint_get', arguments: { blueprint_id: bp.id } })).isError).toBeFalsy();
    const ws = connectWs(server.url, token);
    sockets.push(ws);
    const mark = liveMark(server);
    const sub = ws.subscribe(BlueprintActivityDocument, { id: bp.id });
    await mark.streaming(1);

    expect((await server.gql.ok(RevokeAccessTokenDocument, { id: created.body.id }, user.token)).revokeAccessToken).toBe(true);

    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token })).status).toBe(401);
    expect((await server.gql.request(ViewerDocument, {}, token)).status).toBe(401);
    await expect(mcp.callTool({ name: 'blueprint_get', arguments: { blueprint_id: bp.id } })).rejects.toThrow(/UNAUTHENTICATED/);
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: user.token });
    const ended = await sub.next();
    expect(ended.data?.blueprintActivity ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('GraphQL accounts', () => {
  it('signs up, signs in, mints, lists and revokes tokens, and signs out', async () => {
    const username = uniqueName('graphql');
    const up = await server.gql.ok(SignUpDocument, { username, password: PASSWORD });
    expect(up.signUp).toMatchObject({ username, token: expect.stringMatching(/^bws_/) });
    const wrong = await server.gql.request(SignInDocument, { username, password: 'wrong password here' });
    expect(wrong.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const signIn = (await server.gql.ok(SignInDocument, { username, password: PASSWORD })).signIn;
    const created = (await server.gql.ok(CreateAccessTokenDocument, { name: 'cursor', scope: 'READ' as never, expiresInDays: 7 }, signIn.token))
      .createAccessToken;
    expect(created).toMatchObject({ name: 'cursor', scope: 'READ', token: expect.stringMatching(/^bwu_/) });
    const viewer = (await server.gql.ok(ViewerTokensDocument, {}, signIn.token)).viewer!;
    expect(viewer.tokens.map((t) => t.id)).toEqual([created.id]);
    expect((await server.gql.ok(RevokeAccessTokenDocument, { id: created.id }, signIn.token)).revokeAccessToken).toBe(true);
    expect((await server.gql.ok(ViewerTokensDocument, {}, signIn.token)).viewer!.tokens).toEqual([]);
    expect((await server.gql.ok(SignOutDocument, {}, signIn.token)).signOut).toBe(true);
    expect((await server.gql.request(ViewerTokensDocument, {}, signIn.token)).status).toBe(401);
    expect((await server.gql.request(ViewerTokensDocument, {}, up.signUp.token)).errors).toBeUndefined();
  });
});

describe('claiming an agent session', () => {
  it("moves the agent's blueprints, architectures and runs to the person and revokes the session", async () => {
    const user = await server.rest.signUp(uniqueName('claimer'));
    const agent = await server.rest.agentSession('worker');
    const bp = await createBlueprint(server.rest, agent.token, { name: 'Made by an agent', visibility: 'private' });
    const arch = await server.rest.post('/api/architectures', { token: agent.token, body: { name: 'Agent diagram', visibility: 'private' } });
    expect((await server.rest.get(`/api/blueprints/${bp.id}/start`, { token: agent.token })).status).toBe(200);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: user.token })).status).toBe(404);

    const claimed = await server.rest.post('/api/account/claim', { token: user.token, body: { agent_token: agent.token } });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({ agent_session_id: agent.id, claimed: { blueprints: 1, architectures: 1, runs: 1, operations: expect.any(Number) } });
    expect(claimed.body.claimed.operations).toBeGreaterThanOrEqual(1);

    const mine = await server.rest.get(`/api/blueprints/${bp.id}`, { token: user.token });
    expect(mine.status).toBe(200);
    expect(mine.body.owner_id).toBe(user.id);
    expect((await server.rest.get(`/api/architectures/${arch.body.slug}`, { token: user.token })).body.owner_id).toBe(user.id);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: agent.token })).status).toBe(401);
    const again = await server.rest.post('/api/account/claim', { token: user.token, body: { agent_token: agent.token } });
    expect(again.status).toBe(404);
  });

  it('is refused to agent sessions (403) and checks its body (400); GraphQL claims too', async () => {
    const agent = await server.rest.agentToken();
    const other = await server.rest.agentSession();
    expect((await server.rest.post('/api/account/claim', { token: agent, body: { agent_token: other.token } })).status).toBe(403);
    const user = await server.rest.signUp(uniqueName('gql-claimer'));
    expect((await server.rest.post('/api/account/claim', { token: user.token, body: {} })).status).toBe(400);
    const result = await server.gql.ok(ClaimAgentSessionDocument, { agentToken: other.token }, user.token);
    expect(result.claimAgentSession).toEqual({ agentSessionId: other.id, blueprints: 0, architectures: 0, runs: 0, operations: 0 });
  });
});
