import { ViewerDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The token lookup behind every authenticated request runs as a named prepared statement
 * (`executePrepared` in src/platform/database.ts): planned once per pooled connection, and still a fresh
 * read of the token on every call. The pool has one connection, so the server's own session is the one
 * asked for its prepared statements.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ database: { poolMax: 1 } });
});
afterAll(() => server.close());

/** The names prepared on the server's one pooled connection. */
async function preparedOnServerSession(): Promise<string[]> {
  const rows: Array<{ name: string }> = await server.app.deps.orm.em.fork().getConnection().execute('select name from pg_prepared_statements');
  return rows.map((r) => r.name);
}

describe('the token lookup as a prepared statement', () => {
  it('is prepared on the pooled connection, counted like any statement, and answers a revoked token with 401 at once', async () => {
    const token = await server.rest.agentToken('prepared');
    for (let i = 0; i < 3; i++) {
      const res = await server.gql.request(ViewerDocument, {}, token);
      expect(res.errors).toBeUndefined();
      expect(res.data!.viewer).not.toBeNull();
      // counted like every other statement (the x-sql-statements header comes from MikroORM's logger)
      expect(res.sqlStatements).toBeGreaterThanOrEqual(1);
    }
    expect(await preparedOnServerSession()).toContain('viewer_from_token');
    expect((await server.rest.delete('/api/agent/sessions/current', { token })).status).toBe(204);
    const after = await server.gql.request(ViewerDocument, {}, token);
    expect(after.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
