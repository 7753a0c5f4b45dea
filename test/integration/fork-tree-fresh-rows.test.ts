import { PeerForkTreeDocument, PeerOneDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

/**
 * The fork tree on fresh rows, before PostgreSQL has statistics for them (migration
 * 20261127000600_public_forks_index): bench/peer's two reads answer the same before and after ANALYZE, and
 * a level of the tree statement is planned on the one index that answers it in order, not on a guess.
 */
let server: TestServer;
let sql: SqlClient;
let token: string;
let rootId: string;

beforeAll(async () => {
  server = await startTestServer();
  sql = await SqlClient.connect(server.databaseUrl);
  token = await server.rest.agentToken('reader');
  const [owner] = await sql.query("insert into principal (id, kind, name) values (gen_random_uuid(), 'user', 'tree owner') returning id");
  const plan = '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}';
  const [root] = await sql.query(
    `insert into blueprint (id, slug, name, visibility, owner_id, plan) values (gen_random_uuid(), 'fresh-root', 'Fresh root', 'public', $1, $2) returning id`,
    [owner!.id, plan],
  );
  rootId = root!.id;
  let parents = [rootId];
  for (let level = 1; level <= 2; level++) {
    const rows = await sql.query(
      `insert into blueprint (id, slug, name, visibility, owner_id, plan, forked_from_id, stars_count, created_at)
       select gen_random_uuid(), p.slug || '-' || g, 'Fork ' || $2 || '.' || g, case when g = 7 then 'private' else 'public' end, p.owner_id, p.plan, p.id, g, clock_timestamp()
         from blueprint p cross join generate_series(1, 20) g where p.id = any($1::uuid[]) order by p.created_at, g returning id`,
      [parents, level],
    );
    parents = rows.map((r) => r.id);
  }
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

/** A level of the tree statement as fork-tree.ts `levelSql` writes it, for a parent. */
const LEVEL = `select s.id, s.name, s.stars_count, s.created_at from blueprint s
  where s.forked_from_id = $1 and s.visibility = 'public' order by s.created_at, s.id offset 0 limit 50`;

describe('the fork tree on fresh rows', () => {
  it('is planned on blueprint_public_forks_index without statistics, and answers the same after ANALYZE', async () => {
    const [stats] = await sql.query("select count(*)::int as n from pg_stats where schemaname = 'public' and tablename = 'blueprint'");
    expect(stats!.n).toBe(0);
    const plan = (await sql.query(`explain ${LEVEL}`, [rootId])).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('blueprint_public_forks_index');
    expect(plan).not.toContain('BitmapAnd');
    expect(plan).not.toContain('Sort');

    const tree = await server.gql.ok(PeerForkTreeDocument, { id: rootId }, token);
    const one = await server.gql.ok(PeerOneDocument, { id: rootId }, token);
    // Private forks (every seventh) are left out at each level: 19 forks, 19 x 19 below them.
    expect(tree.blueprint!.forks.totalCount).toBe(19);
    expect(tree.blueprint!.forks.edges.flatMap((e) => e.node.forks.edges)).toHaveLength(19 * 19);

    await sql.query('analyze blueprint');
    const [after] = await sql.query("select count(*)::int as n from pg_stats where schemaname = 'public' and tablename = 'blueprint'");
    expect(after!.n).toBeGreaterThan(0);
    expect(await server.gql.ok(PeerForkTreeDocument, { id: rootId }, token)).toEqual(tree);
    expect(await server.gql.ok(PeerOneDocument, { id: rootId }, token)).toEqual(one);
  });
});
