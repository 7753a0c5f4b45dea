import { randomUUID } from 'node:crypto';
import { encodeCursor } from '../../src/platform/pagination';
import { EXACT_TOTAL_AHEAD, RELEVANCE_CANDIDATES } from '../../src/registry/registry.service';
import { RegistryCountedPagesDocument, RegistryPagesDocument, RegistryTotalDocument, type RegistrySort } from '../generated/graphql';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

/**
 * The registry's total (docs/api.md, "Registry totals"): exact up to EXACT_TOTAL_AHEAD matches past the
 * page's offset; beyond, the count stops there and `total_exact` / `totalCountExact` say so. Relevance
 * ranks a candidate set of the same bound, so its total is capped the same way.
 */
let server: TestServer;
let sql: SqlClient;
let reader: string;
const MANY = EXACT_TOTAL_AHEAD + 50;
const tag = `bulk-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  server = await startTestServer();
  sql = await SqlClient.connect(server.databaseUrl);
  reader = await server.rest.agentToken('reader');
  const [owner] = await sql.query("insert into principal (id, kind, name) values (gen_random_uuid(), 'agent', 'bulk owner') returning id");
  // Many public matches in one statement (the API would take minutes); every tenth also says "zebra".
  await sql.query(
    `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, created_at, updated_at)
     select gen_random_uuid(), $3 || '-' || g, 'Bulk ' || g || case when g % 10 = 0 then ' zebra' else '' end, 'bulk blueprint', array[$3], 'public', $1,
            '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}'::jsonb, now() - g * interval '1 second', now()
       from generate_series(1, $2::int) g`,
    [owner!.id, MANY, tag],
  );
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

const get = (query: string) => server.rest.get(`/api/registry?${query}`, { token: reader });

describe('registry totals', () => {
  it('stop counting past the bound and say so, for every index-walked order', async () => {
    for (const sort of ['stars', 'recent', 'trending', 'rating']) {
      const res = await get(`tags=${tag}&sort=${sort}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: EXACT_TOTAL_AHEAD, total_exact: false, limit: 20, offset: 0 });
      expect(res.body.items).toHaveLength(20);
    }
  });

  it('move the bound with the offset, and are exact again once the rest fits under it', async () => {
    expect((await get(`tags=${tag}&offset=20`)).body).toMatchObject({ total: EXACT_TOTAL_AHEAD + 20, total_exact: false });
    const near = await get(`tags=${tag}&offset=60&limit=100`);
    expect(near.body).toMatchObject({ total: MANY, total_exact: true });
    expect(near.body.items).toHaveLength(100);
    const past = await get(`tags=${tag}&offset=${MANY + 10}`);
    expect(past.body).toMatchObject({ items: [], total: MANY, total_exact: true });
  });

  it('are exact under the bound', async () => {
    const res = await get(`tags=${tag}&q=zebra&sort=stars`);
    expect(res.body).toMatchObject({ total: MANY / 10, total_exact: true });
    expect((await get(`tags=${tag}-none`)).body).toMatchObject({ items: [], total: 0, total_exact: true });
  });

  it('are capped for relevance too, which ranks a bounded candidate set, and exact once the rest fits', async () => {
    expect((await get(`q=bulk&tags=${tag}`)).body).toMatchObject({ total: EXACT_TOTAL_AHEAD, total_exact: false });
    expect((await get(`q=bulk&tags=${tag}&offset=20`)).body).toMatchObject({ total: EXACT_TOTAL_AHEAD + 20, total_exact: false });
    const near = await get(`q=bulk&tags=${tag}&offset=60&limit=100`);
    expect(near.body).toMatchObject({ total: MANY, total_exact: true });
    expect(near.body.items).toHaveLength(100);
    expect((await get(`q=zebra&tags=${tag}`)).body).toMatchObject({ total: MANY / 10, total_exact: true });
    expect((await get(`q=bulk&tags=${tag}&offset=${MANY}`)).body).toMatchObject({ items: [], total: MANY, total_exact: true });
  });

  it('rank the most-starred RELEVANCE_CANDIDATES matches, then list the rest in the stars order, without repeats', async () => {
    expect(MANY).toBeGreaterThan(RELEVANCE_CANDIDATES);
    // Every bulk row says "bulk"; every tenth also has "zebra" in its name, so ranks higher. Stars are
    // equal, so the stars order is newest first, and bulk row g is g seconds old: rows 1..1000 are the
    // candidates, and the zebras among them (10, 20, .., 1000) lead.
    const name = (g: number) => `Bulk ${g}${g % 10 === 0 ? ' zebra' : ''}`;
    const first = await get(`q=bulk or zebra&tags=${tag}&limit=100`);
    expect(first.body.items.map((i: { name: string }) => i.name).sort()).toEqual(Array.from({ length: 100 }, (_, i) => name((i + 1) * 10)).sort());
    // Past the candidates, the stars order: rows 1001.. (zebras 1010.. among them, not ranked).
    const straddle = await get(`q=bulk or zebra&tags=${tag}&offset=${RELEVANCE_CANDIDATES - 10}&limit=20`);
    expect(straddle.body.items.slice(10).map((i: { name: string }) => i.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => name(RELEVANCE_CANDIDATES + 1 + i)),
    );
    // Every page together lists every match once.
    const seen: string[] = [];
    for (let offset = 0; offset < MANY; offset += 100) {
      const res = await get(`q=bulk or zebra&tags=${tag}&offset=${offset}&limit=100`);
      seen.push(...res.body.items.map((i: { id: string }) => i.id));
    }
    expect(new Set(seen).size).toBe(MANY);
    expect(seen).toHaveLength(MANY);
  });

  it('answer the same through GraphQL totalCountExact, with a next page while counting stopped', async () => {
    const first = await server.gql.ok(RegistryTotalDocument, { tags: [tag], first: 10 }, reader);
    expect(first.registry).toEqual({ totalCount: EXACT_TOTAL_AHEAD, totalCountExact: false, pageInfo: { hasNextPage: true } });
    const later = await server.gql.ok(RegistryTotalDocument, { tags: [tag], first: 10, after: encodeCursor(19) }, reader);
    expect(later.registry).toMatchObject({ totalCount: EXACT_TOTAL_AHEAD + 20, totalCountExact: false });
    const last = await server.gql.ok(RegistryTotalDocument, { tags: [tag], first: 10, after: encodeCursor(MANY - 6) }, reader);
    expect(last.registry).toEqual({ totalCount: MANY, totalCountExact: true, pageInfo: { hasNextPage: false } });
    const ranked = await server.gql.ok(RegistryTotalDocument, { q: 'bulk', tags: [tag], first: 10 }, reader);
    expect(ranked.registry).toMatchObject({ totalCount: EXACT_TOTAL_AHEAD, totalCountExact: false });
  });

  it('are not counted when a GraphQL page does not ask for one, and the pages and hasNextPage stay the same', async () => {
    for (const sort of ['STARS', 'RECENT', 'TRENDING', 'RATING'] as RegistrySort[]) {
      // The first page, one that ends exactly at the last match (no row past it), and a short last page.
      for (const [after, edges, hasNextPage] of [
        [null, 10, true],
        [encodeCursor(MANY - 11), 10, false],
        [encodeCursor(MANY - 6), 5, false],
      ] as const) {
        const variables = { tags: [tag], sort, first: 10, after };
        const counted = await server.gql.request(RegistryCountedPagesDocument, variables, reader);
        const uncounted = await server.gql.request(RegistryPagesDocument, variables, reader);
        expect(uncounted.errors).toBeUndefined();
        const { totalCount: _total, ...page } = counted.data!.registry;
        expect(uncounted.data!.registry).toEqual(page);
        expect(page.edges).toHaveLength(edges);
        expect(page.pageInfo.hasNextPage).toBe(hasNextPage);
        // The count is the one statement the uncounted page leaves out.
        expect(uncounted.sqlStatements).toBe(counted.sqlStatements - 1);
      }
    }
  });

  it('answer the same through MCP registry_search', async () => {
    const client = await McpTestClient.connect(server.url, reader);
    try {
      expect(await client.ok('registry_search', { tags: tag, limit: 5 })).toMatchObject({ total: EXACT_TOTAL_AHEAD, total_exact: false, limit: 5 });
      expect(await client.ok('registry_search', { tags: tag, q: 'zebra' })).toMatchObject({ total: MANY / 10, total_exact: true });
    } finally {
      await client.close();
    }
  });
});
