import { randomUUID } from 'node:crypto';
import { EXACT_TOTAL_AHEAD, RELEVANCE_CANDIDATES } from '../../src/registry/registry.service';
import { keywordQuery } from '../../src/registry/keyword-query';
import { takenMatches, type TakenMatchesPath } from '../../src/registry/taken-matches';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

/**
 * How relevance takes its candidates (src/registry/taken-matches.ts): a broad keyword walks the stars
 * index and stops at the matches it needs, a narrow one reads its matches through the GIN indexes. Both
 * must take exactly the same rows, whatever the ties in the stars order, and the walk must not read
 * every match.
 */
let server: TestServer;
let sql: SqlClient;
let reader: string;
/** Enough rows that the walk's region (4 x 1,001) is a small part of the public ones, as at scale. */
const ROWS = 20_000;
const tag = `broad-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  server = await startTestServer();
  sql = await SqlClient.connect(server.databaseUrl);
  reader = await server.rest.agentToken('reader');
  const [owner] = await sql.query("insert into principal (id, kind, name) values (gen_random_uuid(), 'agent', 'broad owner') returning id");
  // Every row says "service"; one in three "payment"; one in 40 "zebra". Stars and creation times repeat,
  // so the stars order leans on its later keys (newest, then id) at every boundary.
  await sql.query(
    `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, stars_count, created_at, updated_at)
     select gen_random_uuid(), $3 || '-' || g,
            'Broad ' || g || case when g % 3 = 0 then ' payment' else '' end || case when g % 40 = 0 then ' zebra' else '' end,
            'a service', array[$3], case when g % 11 = 0 then 'private' else 'public' end, $1,
            '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}'::jsonb,
            g % 7, timestamptz '2026-01-01' - (g % 50) * interval '1 second', now()
       from generate_series(1, $2::int) g`,
    [owner!.id, ROWS, tag],
  );
  await sql.query('analyze blueprint');
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

/** The statement's `?` placeholders as pg's `$n`. */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function statement(q: string, need: number, path: TakenMatchesPath) {
  const keywords = keywordQuery(q);
  const filter = `b.visibility = 'public' and b.search @@ ${keywords.sql} and b.tags @> ?::text[]`;
  const taken = takenMatches(filter, [...keywords.params, `{${tag}}`], { sql: "b.visibility = 'public'", params: [] }, need, path);
  return { text: numbered(`select t.id from (${taken.sql}) t order by t.stars_count desc, t.created_at desc, t.id`), params: taken.params };
}

async function taken(q: string, need: number, path: TakenMatchesPath): Promise<string[]> {
  const s = statement(q, need, path);
  return (await sql.query<{ id: string }>(s.text, s.params)).map((r) => r.id);
}

/** Every plan node of an EXPLAIN (ANALYZE, FORMAT JSON), flattened. */
type PlanNode = { 'Node Type': string; 'Actual Loops': number; 'Actual Rows': number; 'Index Name'?: string; Plans?: PlanNode[] };
async function executedNodes(q: string, need: number): Promise<PlanNode[]> {
  const s = statement(q, need, 'auto');
  const [row] = await sql.query(`explain (analyze, format json) ${s.text}`, s.params);
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    node.Plans?.forEach(visit);
  };
  visit(row!['QUERY PLAN'][0].Plan);
  return nodes.filter((n) => n['Actual Loops'] > 0);
}

describe('relevance candidates of broad and narrow keywords', () => {
  const need = EXACT_TOTAL_AHEAD + 1;

  it.each([
    ['service', need],
    ['serv', need],
    ['payment', need],
    ['service', 1500 + need],
    ['zebra', need],
    ['nothing', need],
    ['service', ROWS * 2],
    ['payment', ROWS],
  ])('are the same rows walked, through the GIN indexes and as the server picks (q=%s, %i taken)', async (q, n) => {
    const bitmap = await taken(q, n, 'bitmap');
    expect(bitmap.length).toBeLessThanOrEqual(n);
    expect(await taken(q, n, 'walk')).toEqual(bitmap);
    expect(await taken(q, n, 'auto')).toEqual(bitmap);
  });

  it('of a keyword in every row: the stars index is walked, and only as far as the matches taken', async () => {
    for (const q of ['service', 'serv']) {
      const nodes = await executedNodes(q, need);
      expect(nodes.filter((n) => n['Node Type'] === 'Bitmap Heap Scan')).toEqual([]);
      const walk = nodes.filter((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'blueprint_public_stars_index');
      expect(walk).toHaveLength(1);
      // Public rows are ten in eleven, and all match: the walk stops at the `need`th.
      expect(walk[0]!['Actual Rows']).toBe(need);
    }
  });

  it('of a rare keyword: the stars index is not walked (the planner reads its few matches its own way)', async () => {
    const nodes = await executedNodes('zebra', need);
    expect(nodes.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'blueprint_public_stars_index')).toBe(false);
  });

  it('give the same pages over REST, ranked among the most-starred candidates, every match listed once', async () => {
    const get = async (query: string) => {
      const res = await server.rest.get(`/api/registry?tags=${tag}&${query}`, { token: reader });
      expect(res.status).toBe(200);
      return res.body as { items: Array<{ id: string; name: string }>; total: number; total_exact: boolean };
    };
    const first = await get('q=serv&limit=50');
    expect(first).toMatchObject({ total: EXACT_TOTAL_AHEAD, total_exact: false });
    expect(first.items).toHaveLength(50);
    // "service" is in every row's description alike; names do not say it, so rank ties and stars decide.
    expect(first.items.map((i) => i.id)).toEqual((await get('q=service&limit=50')).items.map((i) => i.id));
    // Pages across the candidates' end: the ranked ones, then the stars order, no row twice.
    const seen: string[] = [];
    for (let offset = 0; offset < RELEVANCE_CANDIDATES * 2; offset += 100)
      seen.push(...(await get(`q=serv&offset=${offset}&limit=100`)).items.map((i) => i.id));
    expect(seen).toHaveLength(RELEVANCE_CANDIDATES * 2);
    expect(new Set(seen).size).toBe(RELEVANCE_CANDIDATES * 2);
    // The walk took the same rows: past the candidates, the page is the bitmap's stars order.
    const byStars = await taken('service', RELEVANCE_CANDIDATES * 2, 'bitmap');
    expect(seen.slice(RELEVANCE_CANDIDATES)).toEqual(byStars.slice(RELEVANCE_CANDIDATES));
    expect(new Set(seen.slice(0, RELEVANCE_CANDIDATES))).toEqual(new Set(byStars.slice(0, RELEVANCE_CANDIDATES)));
  });
});
