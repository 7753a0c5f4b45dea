import { ForkTreeBatchedDocument, ForkTreeOneStatementDocument, PeerForkTreeDocument, PeerOneDocument, ViewerDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { SHAPED_STATEMENTS_MAX, executePrepared, shapedStatementCount } from '../../src/platform/sql/database';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SqlClient } from '../helpers/sql';

/**
 * The token lookup behind every authenticated request runs as a named prepared statement
 * (`executePrepared` in src/platform/sql/database.ts): planned once per pooled connection, and still a fresh
 * read of the token on every call. The pool has one connection, so the server's own session is the one
 * asked for its prepared statements.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ database: { poolMax: 1 } });
});
afterAll(() => server.close());

/** The statements prepared on the server's one pooled connection. */
async function preparedStatements(): Promise<Array<{ name: string; statement: string; generic_plans: number; custom_plans: number }>> {
  return server.app.deps.orm.em.fork().getConnection().execute('select name, statement, generic_plans::int, custom_plans::int from pg_prepared_statements');
}

async function preparedOnServerSession(): Promise<string[]> {
  return (await preparedStatements()).map((r) => r.name);
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

describe("the token lookup's plan", () => {
  it('joins the principal in a nested loop, whatever the statistics, and compares hashes bytewise', async () => {
    const token = await server.rest.agentToken('plan');
    expect((await server.gql.request(ViewerDocument, {}, token)).data!.viewer).not.toBeNull();
    // A few hundred principals, analyzed: over a table this small the planner chose a hash join for a plain
    // join (its seq scan and hash cost more than one index probe); the fenced lateral join still loops.
    const sql = await SqlClient.connect(server.databaseUrl);
    try {
      await sql.query(`insert into principal (id, kind, name) select gen_random_uuid(), 'agent', 'plan ' || g from generate_series(1, 300) g`);
      await sql.query('analyze principal, access_token');
      const [column] = await sql.query<{ collation_name: string }>(
        "select collation_name from information_schema.columns where table_name = 'access_token' and column_name = 'token_hash'",
      );
      expect(column!.collation_name).toBe('C');
    } finally {
      await sql.close();
    }
    // On the server's one pooled connection, where the lookup is prepared.
    const rows = await server.app.deps.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ 'QUERY PLAN': unknown }>>("explain (format json) execute viewer_from_token('0000')");
    const nodes: string[] = [];
    const walk = (node: { 'Node Type': string; Plans?: unknown[] }) => {
      nodes.push(node['Node Type']);
      for (const child of node.Plans ?? []) walk(child as typeof node);
    };
    walk((rows[0]!['QUERY PLAN'] as Array<{ Plan: { 'Node Type': string } }>)[0]!.Plan);
    expect(nodes).toContain('Nested Loop');
    expect(nodes).not.toContain('Hash Join');
  });
});

describe('a prepared statement inside a transaction', () => {
  it("runs on the transaction's own connection: it sees the transaction's rows and is undone with it", async () => {
    const em = server.app.deps.orm.em.fork() as EntityManager;
    const count = (on: EntityManager) =>
      executePrepared<{ n: number }>(on, 'test_outbox_count', "select count(*)::int as n from event_outbox where topic = 'test.prepared'", []);
    const before = (await count(em))[0]!.n;
    await expect(
      em.transactional(async (tx) => {
        await executePrepared(tx as EntityManager, 'test_outbox_insert', "insert into event_outbox (topic, payload) values ('test.prepared', '{}')", []);
        // The pool has one connection, held by this transaction: on any other the statement would wait.
        expect((await count(tx as EntityManager))[0]!.n).toBe(before + 1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await count(em))[0]!.n).toBe(before);
    expect(await preparedOnServerSession()).toEqual(expect.arrayContaining(['test_outbox_count', 'test_outbox_insert']));
  });
});

describe('generated reads prepared by shape (executeShaped)', () => {
  it('prepares a fork tree once for its shape, whatever page is asked for, and answers each page as the batched path', async () => {
    const token = await server.rest.agentToken('shaped');
    const root = await createBlueprint(server.rest, token, { name: 'Shaped root' });
    for (let i = 0; i < 3; i++) await fork(server.rest, token, root.id);
    const trees = async () => (await preparedStatements()).filter((s) => s.name.startsWith('shaped_') && s.statement.includes('forked_from_id'));
    const pages: Array<{ first: number; after?: string }> = [{ first: 1 }, { first: 2 }, { first: 5 }];
    const first = await server.gql.ok(ForkTreeOneStatementDocument, { id: root.id, first: 1 }, token);
    pages.push({ first: 1, after: first.blueprint!.forks.edges[0]!.cursor });
    const before = shapedStatementCount();
    const answers = [];
    for (const page of pages) {
      const one = await server.gql.request(ForkTreeOneStatementDocument, { id: root.id, ...page }, token);
      expect(one.errors).toBeUndefined();
      // one statement: the tree, with the token lookup riding in it (platform/graphql/deferred-viewer.ts)
      expect(one.sqlStatements).toBe(1);
      answers.push(one.data);
    }
    // Four pages, one shape: the offsets and limits are parameters of one prepared statement.
    expect(shapedStatementCount()).toBe(before);
    expect(await trees()).toHaveLength(1);
    for (const [i, page] of pages.entries())
      expect(answers[i]).toEqual((await server.gql.request(ForkTreeBatchedDocument, { id: root.id, ...page }, token)).data);
    expect(SHAPED_STATEMENTS_MAX).toBeGreaterThanOrEqual(shapedStatementCount());
  });
});

describe('a read of one key keeps a generic plan', () => {
  // PostgreSQL plans a prepared statement five times for its values, then keeps a generic plan only if it
  // costs no more than those did. A generic plan assumes ten elements for `= any($n)`: on a table of some
  // hundreds of rows that always lost to the custom plan for one key, and the read was planned on every
  // execution (src/platform/sql/pg-array.ts, `amongKeys`). Without the one-key spelling, the counts below
  // are 0 generic and 10 custom.
  it('is planned at most five times: one blueprint by id, and a fork tree under one root', async () => {
    const token = await server.rest.agentToken('generic');
    const root = await createBlueprint(server.rest, token, { name: 'Generic root' });
    await fork(server.rest, token, root.id);
    const sql = await SqlClient.connect(server.databaseUrl);
    try {
      await sql.query(
        `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, module_count, step_count, created_at, updated_at)
         select gen_random_uuid(), 'generic-' || g, 'Generic ' || g, 'd', '{}', 'public', b.owner_id, b.plan, 1, 1, now(), now()
           from blueprint b cross join generate_series(1, 400) g where b.id = $1`,
        [root.id],
      );
      await sql.query('analyze blueprint');
    } finally {
      await sql.close();
    }
    const reads = [() => server.gql.request(PeerOneDocument, { id: root.id }, token), () => server.gql.request(PeerForkTreeDocument, { id: root.id }, token)];
    for (const read of reads) {
      const before = new Set(await preparedOnServerSession());
      for (let i = 0; i < 10; i++) expect((await read()).errors).toBeUndefined();
      // The read's own statement (the token lookup rides in it): the one this document prepared.
      const prepared = (await preparedStatements()).filter((s) => !before.has(s.name));
      expect(prepared).toHaveLength(1);
      expect(prepared[0]!.statement).toContain('from blueprint b where b.id');
      expect(prepared[0]).toMatchObject({ custom_plans: 5, generic_plans: 5 });
    }
  });
});

describe('the registry list without a keyword or tag, prepared', () => {
  // src/registry/registry.service.ts, `readRows` and `countedPage`: the public list in an order has no values
  // in its filter, so its page and its count run prepared, as one statement; its usual first page spells its
  // bounds as constants (`pageBounds`) and keeps a generic plan. A tag or keyword is planned for its value on
  // every call, its page and count apart.
  const statements = (res: { headers: Headers }) => Number(res.headers.get('x-sql-statements'));

  it('prepares the page and the count of the plain list as one statement, and neither of a tag search, with the same answers as text', async () => {
    const token = await server.rest.agentToken('registry-prepared');
    await createBlueprint(server.rest, token, { name: 'Listed one', tags: ['listed'] });
    await createBlueprint(server.rest, token, { name: 'Listed two', tags: ['listed'] });
    const names = async () => new Set(await preparedOnServerSession());
    const before = await names();
    const list = await server.rest.get('/api/registry?sort=recent&limit=5', { token });
    expect(list.status).toBe(200);
    const prepared = (await preparedStatements()).filter((s) => !before.has(s.name)).map((s) => s.statement);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]).toContain('count(*) as total');
    expect(prepared[0]).toMatch(/order by b\.created_at desc, b\.id offset \$\d+ limit \$\d+\) q\) bw_p/);
    // One statement: the token was seen live by the requests above, so the page carries its lookup
    // (`viewerAfterRead`, docs/reads.md).
    expect(statements(list)).toBe(1);
    for (let i = 0; i < 6; i++) expect((await server.rest.get('/api/registry?sort=recent&limit=5', { token })).body).toEqual(list.body);
    const afterList = await names();
    const tagged = await server.rest.get('/api/registry?sort=recent&limit=5&tags=listed', { token });
    expect(tagged.status).toBe(200);
    expect(tagged.body.items.map((c: { name: string }) => c.name)).toEqual(['Listed two', 'Listed one']);
    expect(list.body.items.slice(0, 2)).toEqual(tagged.body.items);
    expect(tagged.body.total).toBe(2);
    // The page (carrying the lookup) and the count.
    expect(statements(tagged)).toBe(2);
    expect(await names()).toEqual(afterList);
  });

  /** GETs `path` eight times (the same answer each time) and answers it and the statements it newly prepared. */
  async function eightTimes(path: string, token: string) {
    const before = new Set(await preparedOnServerSession());
    const first = await server.rest.get(path, { token });
    expect(first.status).toBe(200);
    for (let i = 0; i < 7; i++) expect((await server.rest.get(path, { token })).body).toEqual(first.body);
    return { first, prepared: (await preparedStatements()).filter((s) => !before.has(s.name)) };
  }

  it('keeps a generic plan for the usual first page, whose bounds are constants, and answers a page past the end with its total', async () => {
    const token = await server.rest.agentToken('registry-generic');
    // A token's first request looks it up first; every later one carries the lookup in the page's
    // statement (`viewerAfterRead`), which is the text measured here.
    expect((await server.rest.get('/api/registry?sort=stars', { token })).status).toBe(200);
    const { first, prepared } = await eightTimes('/api/registry?sort=stars', token);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]!.statement).toMatch(/offset 0 limit 20\) q\) bw_p/);
    // Its only parameter is the carried lookup's token hash: PostgreSQL plans the first five executions
    // for their values, then keeps the generic plan, which costs no more. With parameter bounds every
    // execution was custom-planned (eight custom plans, no generic one).
    expect(prepared[0]).toMatchObject({ custom_plans: 5, generic_plans: 3 });

    // The trending list (the maintained window) is prepared the same way.
    const trending = await eightTimes('/api/registry/trending', token);
    expect(trending.prepared).toHaveLength(1);
    expect(trending.prepared[0]).toMatchObject({ custom_plans: 5, generic_plans: 3 });

    // Later pages share one text whatever their offset: the prepared names are not spent a page at a time.
    const beforePages = new Set(await preparedOnServerSession());
    for (const offset of [1, 2, 3]) expect((await server.rest.get(`/api/registry?sort=stars&offset=${offset}`, { token })).status).toBe(200);
    expect((await preparedStatements()).filter((s) => !beforePages.has(s.name))).toHaveLength(1);

    const { total } = first.body as { total: number };
    expect(total).toBeGreaterThan(2);
    const past = await server.rest.get(`/api/registry?sort=stars&offset=${total + 5}`, { token });
    expect(past.body).toMatchObject({ items: [], total, total_exact: true });
  });
});
