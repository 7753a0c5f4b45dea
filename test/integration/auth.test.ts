import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { CreateAgentSessionDocument, ViewerDocument } from '../generated/graphql';
import { distAdmin, ensureBuilt, projectRoot } from '../helpers/build';
import { startTestServer, type TestServer } from '../helpers/server';
import { query, rowCounts, withPg } from '../helpers/sql';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A route that needs a viewer and writes nothing: GET of an operation id nobody has (404 once authenticated). */
const authenticatedProbe = (token?: string, headers?: Record<string, string>) =>
  server.rest.get('/api/tools/operations/00000000-0000-4000-8000-000000000000', { token, headers });

async function expectRejectedEverywhere(token: string): Promise<void> {
  const rest = await authenticatedProbe(token);
  expect(rest.status).toBe(401);
  expect(rest.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
  const gql = await server.gql.request(ViewerDocument, {}, token);
  expect(gql.status).toBe(401);
  expect(gql.data ?? null).toBeNull();
  expect(gql.errors).toEqual([{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }]);
}

describe('POST /api/agent/sessions', () => {
  it('issues an agent session with no auth and no body: a bwa_ token, a session id and a 30-day expiry', async () => {
    const before = Date.now();
    const res = await server.rest.post('/api/agent/sessions');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'session_id', 'token']);
    expect(res.body.token).toMatch(/^bwa_[A-Za-z0-9_-]{43}$/);
    expect(res.body.session_id).toMatch(UUID);
    const expiresAt = Date.parse(res.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 1000);
  });

  it('accepts an empty JSON body or {name}, and the name shows as the viewer', async () => {
    const empty = await server.rest.post('/api/agent/sessions', { rawBody: '' });
    expect(empty.status).toBe(201);
    const named = await server.rest.post('/api/agent/sessions', { body: { name: 'Planner 9' } });
    expect(named.status).toBe(201);
    const viewer = await server.gql.ok(ViewerDocument, {}, named.body.token);
    expect(viewer.viewer).toEqual({ id: named.body.session_id, kind: 'AGENT', name: 'Planner 9' });
    expect(named.body.token).not.toBe(empty.body.token);
  });

  it('rejects a name that is not a short string with 400 VALIDATION_FAILED and writes nothing', async () => {
    const before = await rowCounts(server.databaseUrl);
    for (const body of [{ name: 12 }, { name: 'x'.repeat(101) }, { nickname: 'x' }]) {
      const res = await server.rest.post('/api/agent/sessions', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });

  it('is also the GraphQL mutation createAgentSession, whose token works the same', async () => {
    const { createAgentSession } = await server.gql.ok(CreateAgentSessionDocument, { name: 'via graphql' });
    expect(createAgentSession.token).toMatch(/^bwa_/);
    expect(Date.parse(createAgentSession.expiresAt) - Date.now()).toBeGreaterThan(29 * DAY_MS);
    const viewer = await server.gql.ok(ViewerDocument, {}, createAgentSession.token);
    expect(viewer.viewer).toMatchObject({ id: createAgentSession.sessionId, name: 'via graphql' });
  });
});

describe('bearer tokens', () => {
  it('authenticates REST and GraphQL with a session token; anonymous GraphQL gets 401 for viewer', async () => {
    const token = await server.rest.agentToken();
    const rest = await authenticatedProbe(token);
    expect(rest.status).toBe(404); // past authentication, to the (missing) operation
    expect((await server.gql.ok(ViewerDocument, {}, token)).viewer?.kind).toBe('AGENT');
    expect((await server.gql.request(ViewerDocument, {})).status).toBe(401);
    expect((await authenticatedProbe()).status).toBe(401);
  });

  it('answers an unknown token with 401 UNAUTHENTICATED on REST and GraphQL', async () => {
    const token = await server.rest.agentToken();
    await expectRejectedEverywhere(`bwa_${'A'.repeat(43)}`);
    await expectRejectedEverywhere(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'));
  });

  it.each([['Token abc'], ['Bearer'], ['Bearer a b'], ['Basic dXNlcjpwYXNz'], ['bwa_notbearer']])(
    'answers the malformed Authorization header %j with 401 UNAUTHENTICATED on REST and GraphQL',
    async (header) => {
      const rest = await authenticatedProbe(undefined, { authorization: header });
      expect(rest.status).toBe(401);
      expect(rest.body.error.code).toBe('UNAUTHENTICATED');
      const gql = await server.rest.post('/graphql', { body: { query: '{ viewer { id } }' }, headers: { authorization: header } });
      expect(gql.status).toBe(401);
      expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    },
  );

  it('answers an expired token with 401 on REST and GraphQL, and the same token before expiry worked', async () => {
    const token = await server.rest.agentToken();
    expect((await server.gql.ok(ViewerDocument, {}, token)).viewer).not.toBeNull();
    const updated = await query(server.databaseUrl, `update access_token set expires_at = now() - interval '1 second' where token_hash = $1 returning id`, [
      sha256(token),
    ]);
    expect(updated).toHaveLength(1);
    await expectRejectedEverywhere(token);
  });

  it('revokes the session on DELETE /api/agent/sessions/current: 204, then 401 everywhere; other sessions keep working', async () => {
    const token = await server.rest.agentToken();
    const other = await server.rest.agentToken();
    const res = await server.rest.delete('/api/agent/sessions/current', { token });
    expect(res.status).toBe(204);
    await expectRejectedEverywhere(token);
    expect((await server.gql.ok(ViewerDocument, {}, other)).viewer).not.toBeNull();
    // Revoking again is no longer possible: the token is dead.
    expect((await server.rest.delete('/api/agent/sessions/current', { token })).status).toBe(401);
    expect((await server.rest.delete('/api/agent/sessions/current')).status).toBe(401);
  });

  it('stores tokens only as SHA-256: no table holds the plaintext token', async () => {
    const token = await server.rest.agentToken('hash probe');
    const secret = token.slice('bwa_'.length);
    const hits = await withPg(server.databaseUrl, async (client) => {
      const tables = await client.query<{ name: string }>(
        `select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      );
      const found: string[] = [];
      for (const { name } of tables.rows) {
        const r = await client.query(`select count(*)::int as n from "${name}" t where t::text like '%' || $1 || '%'`, [secret]);
        if (r.rows[0].n > 0) found.push(name);
      }
      return found;
    });
    expect(hits).toEqual([]);
    expect(await query(server.databaseUrl, 'select kind from access_token where token_hash = $1', [sha256(token)])).toEqual([{ kind: 'agent_session' }]);
  });
});

describe('npm run admin -- create-user', () => {
  jest.setTimeout(180_000);
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [distAdmin, ...args], { cwd: projectRoot, env: { ...process.env, DATABASE_URL: server.databaseUrl } });

  beforeAll(() => ensureBuilt(), 180_000);

  it('prints a bwu_ user token that works as a bearer token, stored only hashed', async () => {
    const { stdout } = await run(['create-user', 'Ada Lovelace']);
    const printed = JSON.parse(stdout.trim());
    expect(printed).toEqual({ user_id: expect.stringMatching(UUID), name: 'Ada Lovelace', token: expect.stringMatching(/^bwu_[A-Za-z0-9_-]{43}$/) });
    const { viewer } = await server.gql.ok(ViewerDocument, {}, printed.token);
    expect(viewer).toEqual({ id: printed.user_id, kind: 'USER', name: 'Ada Lovelace' });
    expect((await authenticatedProbe(printed.token)).status).toBe(404);
    const rows = await query(server.databaseUrl, 'select kind, expires_at from access_token where token_hash = $1', [sha256(printed.token)]);
    expect(rows).toEqual([{ kind: 'mcp', expires_at: null }]);

    // mint-token adds a second, independent token for the same user.
    const minted = JSON.parse((await run(['mint-token', printed.user_id])).stdout.trim());
    expect(minted.token).toMatch(/^bwu_/);
    expect((await server.gql.ok(ViewerDocument, {}, minted.token)).viewer?.id).toBe(printed.user_id);

    // A user token cannot end an "agent session" (that locked people out): 400, and it keeps working.
    expect((await server.rest.delete('/api/agent/sessions/current', { token: minted.token })).status).toBe(400);
    expect((await server.gql.ok(ViewerDocument, {}, minted.token)).viewer?.id).toBe(printed.user_id);
    // An account token does not manage tokens (only a sign-in session does, docs/accounts.md): 403.
    const [mintedRow] = await query(server.databaseUrl, 'select id from access_token where token_hash = $1', [sha256(minted.token)]);
    expect((await server.rest.delete(`/api/account/tokens/${mintedRow!.id}`, { token: printed.token })).status).toBe(403);
    // Revoking one token ends that token only; the user's other token keeps working.
    await query(server.databaseUrl, 'update access_token set revoked_at = now() where id = $1', [mintedRow!.id]);
    await expectRejectedEverywhere(minted.token);
    expect((await server.gql.ok(ViewerDocument, {}, printed.token)).viewer?.id).toBe(printed.user_id);
  });

  it('exits 2 with usage on a missing name, and 1 without writing on an unknown user id', async () => {
    await expect(run(['create-user'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage') });
    const before = await rowCounts(server.databaseUrl);
    await expect(run(['mint-token', '00000000-0000-4000-8000-000000000000'])).rejects.toMatchObject({ code: 1 });
    await expect(run(['mint-token', 'not-a-uuid'])).rejects.toMatchObject({ code: 1 });
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });
});
