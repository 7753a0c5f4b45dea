/**
 * `npm run bench:registry`: the registry at scale. Seeds 100,000 public blueprints with SQL (names and
 * descriptions from a word list, 2-4 tags of 40, stars on a long tail, creation spread over a year) plus a
 * week of activity (stars, forks, executions), then for each query shape of GET /api/registry (and GET /api/registry/trending,
 * and a filtered GraphQL `registry` page with and without its total) prints the
 * plan PostgreSQL runs (EXPLAIN of the exact statements the server sent, captured in process), then three
 * measurements per shape at BENCH_CONNECTIONS (10) connections:
 * - p50/p99 at a steady BENCH_RATE (200) req/s: one request every 5 ms, each timed from when it was due
 *   (bench/steady-load.ts; autocannon's `overallRate` sent each second's requests in one burst). Goal
 *   (issue 27): p99 <= 20 ms for every shape.
 * - saturated req/s (as many as the server answers);
 * - the floor: the same SQL statements, sent through `pg` by as many clients in a loop (the statements of
 *   one request together, in parallel, as the server sends them; prepared where the server prepares them,
 *   as text with the values in place where it sends text). Goal: saturated >= 0.7x of it.
 *
 * Environment: DATABASE_URL (required), BENCH_BLUEPRINTS (100000), BENCH_DURATION seconds per run (5),
 * BENCH_RATE (200), BENCH_SHAPES (only the shapes whose name contains one of these comma-separated words).
 */
import type autocannon from 'autocannon';
import { sqlListeners } from '../src/platform/sql/sql-counter';
import { isPreparedText, positional } from '../src/platform/sql/database';
import { connections, duration, graphqlLoad, load, row, run, serverProcess, sleep, withBench, type LoadResult } from './harness';
import { steadyLoad } from './steady-load';
import { latencyAt } from './basics';

const BLUEPRINTS = Number(process.env.BENCH_BLUEPRINTS ?? 100_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const ONLY = process.env.BENCH_SHAPES?.split(',').filter(Boolean) ?? [];

/** A statement of one request as the server sent it: as text with its values, or prepared (`name`) with parameters. */
interface FloorStatement {
  text: string;
  values?: unknown[];
  name?: string;
}

/** One name per prepared text, as the server keeps it (a name always stands for the same text). */
const floorNames = new Map<string, string>();
function floorName(sql: string): string {
  let name = floorNames.get(sql);
  if (name === undefined) floorNames.set(sql, (name = `floor_${floorNames.size + 1}`));
  return name;
}

/**
 * One request's statements, sent through `pg` by `connections` clients in a loop for `duration` seconds,
 * each the way the server sent it: a statement the server prepares is prepared here too (planned once per
 * connection), so that the floor does not pay planning the server does not.
 */
async function sqlFloor(databaseUrl: string, statements: FloorStatement[]): Promise<LoadResult> {
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: databaseUrl, max: connections });
  const latencies: number[] = [];
  try {
    const end = Date.now() + duration * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < end) {
          const t = performance.now();
          const results = await Promise.all(statements.map((statement) => pool.query(statement)));
          for (const r of results) JSON.stringify(r.rows); // a server would serialise them too
          latencies.push(performance.now() - t);
        }
      }),
    );
  } finally {
    await pool.end();
  }
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / duration, p50: latencyAt(latencies, 0.5), p99: latencyAt(latencies, 0.99), total: latencies.length, non2xx: 0, errors: 0 };
}

const WORDS = [
  'payment',
  'invoice',
  'chat',
  'search',
  'inventory',
  'booking',
  'analytics',
  'dashboard',
  'storefront',
  'gateway',
  'ledger',
  'calendar',
  'notebook',
  'tracker',
  'forum',
  'wiki',
  'crm',
  'mailer',
  'scheduler',
  'pipeline',
  'catalog',
  'checkout',
  'identity',
  'metrics',
  'alerting',
  'survey',
  'recipes',
  'fitness',
  'music',
  'video',
  'photo',
  'map',
  'delivery',
  'ticketing',
  'auction',
  'portfolio',
  'newsletter',
  'podcast',
  'learning',
  'quiz',
];
const TAGS = [
  'typescript',
  'python',
  'go',
  'rust',
  'react',
  'vue',
  'svelte',
  'postgres',
  'redis',
  'kafka',
  'graphql',
  'rest',
  'grpc',
  'aws',
  'gcp',
  'docker',
  'kubernetes',
  'serverless',
  'mobile',
  'web',
  'saas',
  'fintech',
  'health',
  'edtech',
  'ecommerce',
  'ml',
  'realtime',
  'offline',
  'cli',
  'api',
  'auth',
  'payments',
  'search',
  'analytics',
  'iot',
  'game',
  'social',
  'crm',
  'ai',
  'security',
];

/** Everything in a few set-based statements; ids are deterministic functions of the series number. */
async function seed(db: import('pg').Client, ownerId: string): Promise<void> {
  await db.query(`insert into principal (id, kind, name) select gen_random_uuid(), 'user', 'fan ' || g from generate_series(1, 300) g`);
  await db.query(
    `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, module_count, step_count, stars_count, forks_count, created_at, updated_at)
     select gen_random_uuid(), 'bp-' || g,
            initcap(w[1 + (g * 7) % 40]) || ' ' || initcap(w[1 + (g * 13 + 5) % 40]) || ' ' || g,
            'A ' || w[1 + (g * 17 + 3) % 40] || ' service with ' || w[1 + (g * 11 + 9) % 40] || ' and ' || w[1 + (g * 19 + 1) % 40] || ' modules',
            array(select distinct t[1 + (g * k * 31 + k) % 40] from generate_series(1, 2 + g % 3) k),
            'public', $1,
            '{"modules":[{"key":"api","name":"API","summary":"","kind":"backend","dependsOn":[]}],"steps":[{"key":"s","moduleKey":"api","title":"Build","instructions":"Build it","acceptance":["works"]}],"configuration":{},"designSystem":{}}'::jsonb,
            1, 1, floor(1000 / (1 + (g * 7919) % 1000))::int - 1, 0,
            now() - ((g::bigint * 104729) % 525600) * interval '1 minute', now()
       from generate_series(1, $2::int) g, (select $3::text[] as w, $4::text[] as t) words`,
    [ownerId, BLUEPRINTS, WORDS, TAGS],
  );
  // A week of activity on a tenth of them: stars by the fans, forks (rows with forked_from_id), runs.
  await db.query(
    `insert into star (principal_id, blueprint_id, created_at)
     select p.id, b.id, now() - random() * interval '6 days'
       from (select id, row_number() over (order by id) n from principal where kind = 'user') p
       join (select id, row_number() over (order by id) n from blueprint where stars_count > 20) b on (b.n + p.n) % 70 = 0
     on conflict do nothing`,
  );
  await db.query(
    `update blueprint f set forked_from_id = p.id, created_at = now() - random() * interval '6 days'
       from (select id, row_number() over (order by id) n from blueprint order by id limit 2000) p
      where f.slug = 'bp-' || (p.n * 37 + 11)`,
  );
  await db.query(
    `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, stage_token_hashes, started_at)
     select gen_random_uuid(), b.id, $1, 'completed', 1, '{}', now() - random() * interval '6 days'
       from (select id from blueprint order by id limit 3000) b, generate_series(1, 3)`,
    [ownerId],
  );
  await db.query('vacuum analyze');
}

interface Shape {
  name: string;
  query: string;
  /** Default `/api/registry`. */
  path?: string;
  /** A POST /graphql of this document instead (`query` is then only printed). */
  graphql?: { document: string; variables: Record<string, unknown> };
}

/** A registry page as a client that scrolls would ask for it: with or without the total. */
const registryDocument = (total: boolean) => `query ($q: String, $tags: [String!], $sort: RegistrySort) {
  registry(q: $q, tags: $tags, sort: $sort, first: 20) {
    ${total ? 'totalCount totalCountExact ' : ''}pageInfo { hasNextPage endCursor } edges { node { id name stars tags } }
  }
}`;

const shapes: Shape[] = [
  { name: 'q + tags, relevance', query: 'q=payment&tags=go&sort=relevance' },
  { name: 'q + tags, stars', query: 'q=payment&tags=go&sort=stars' },
  { name: 'q + tags, recent', query: 'q=payment&tags=go&sort=recent' },
  { name: 'q + tags, trending', query: 'q=payment&tags=go&sort=trending' },
  { name: 'q, relevance', query: 'q=chat%20search' },
  // Broad keywords (issue 27): "service" is in every description, "payment" in about an eighth of them.
  { name: 'q every row + tags, relevance', query: 'q=service&tags=saas' },
  { name: 'q an eighth, relevance', query: 'q=payment' },
  // Word prefixes: the last word is a prefix ("pay" finds payment, payments).
  { name: 'q prefix, relevance', query: 'q=pay' },
  { name: 'q prefix every row, relevance', query: 'q=serv' },
  { name: 'tags, stars', query: 'tags=python,go' },
  { name: 'all, stars', query: 'sort=stars' },
  { name: 'all, recent', query: 'sort=recent' },
  { name: 'all, trending', query: 'sort=trending' },
  { name: 'all, stars, page 50', query: 'sort=stars&offset=980&limit=20' },
  { name: 'trending list', query: 'limit=20', path: '/api/registry/trending' },
  // GraphQL counts only when the total is selected (docs/reads.md): the same filtered page both ways.
  {
    name: 'GraphQL q + tags, stars, total',
    query: 'registry(q: "payment", tags: ["go"], sort: STARS) { totalCount ... }',
    graphql: { document: registryDocument(true), variables: { q: 'payment', tags: ['go'], sort: 'STARS' } },
  },
  {
    name: 'GraphQL q + tags, stars, no total',
    query: 'registry(q: "payment", tags: ["go"], sort: STARS) { pageInfo edges }',
    graphql: { document: registryDocument(false), variables: { q: 'payment', tags: ['go'], sort: 'STARS' } },
  },
  {
    name: 'GraphQL tags, stars, no total',
    query: 'registry(tags: ["python", "go"], sort: STARS) { pageInfo edges }',
    graphql: { document: registryDocument(false), variables: { tags: ['python', 'go'], sort: 'STARS' } },
  },
];

run(() =>
  withBench('bench/registry', {}, async ({ app, db, principalId, token, databaseUrl }) => {
    const t0 = Date.now();
    await seed(db, principalId);
    const { rows: counts } = await db.query<{ n: string; stars: string; runs: string; forks: string }>(
      `select (select count(*) from blueprint) n, (select count(*) from star) stars, (select count(*) from execution_run) runs,
              (select count(*) from blueprint where forked_from_id is not null) forks`,
    );
    const c = counts[0]!;
    console.log(
      `seeded with SQL in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${c.n} public blueprints, ${c.stars} stars, ${c.forks} forks, ${c.runs} runs in the last week`,
    );
    console.log('');

    // The load runs against the server as a deployment runs it (its own process, no SQL counting); the
    // in-process app only shows which statements each shape sends, for EXPLAIN.
    const server = await serverProcess(databaseUrl);
    const headers = { authorization: `Bearer ${token}` }; // the registry needs a token (docs/api.md, Authentication)
    const results: Array<{ name: string; steady: LoadResult; saturated: LoadResult; floor: LoadResult }> = [];
    for (const shape of shapes.filter((s) => ONLY.length === 0 || ONLY.some((word) => s.name.includes(word)))) {
      const path = shape.graphql ? '/graphql' : `${shape.path ?? '/api/registry'}?${shape.query}`;
      const request = shape.graphql
        ? graphqlLoad(`${app.url}${path}`, shape.graphql.document, shape.graphql.variables, token)
        : ({ url: `${app.url}${path}`, headers } as autocannon.Options);
      const statements: FloorStatement[] = [];
      const shown: string[] = []; // with the values in place, for EXPLAIN
      const platform = app.deps.orm.em.getPlatform();
      const listener = (sql: string, params: readonly unknown[]) => {
        shown.push(platform.formatQuery(sql, [...params]));
        statements.push(isPreparedText(sql) ? { name: floorName(sql), text: positional(sql), values: [...params] } : { text: shown.at(-1)! });
      };
      sqlListeners.add(listener);
      const res = await fetch(request.url!, { method: request.method ?? 'GET', headers: request.headers, body: request.body as string | undefined });
      sqlListeners.delete(listener);
      const body = (await res.json()) as { items?: unknown[]; total?: number; total_exact?: boolean; data?: any; errors?: unknown };
      if (res.status !== 200 || body.errors) throw new Error(`${shape.name}: ${res.status} ${JSON.stringify(body)}`);
      const items = body.items ?? body.data.registry.edges;
      const total = body.total ?? body.data?.registry.totalCount;
      const exact = body.total_exact ?? body.data?.registry.totalCountExact;
      const of = total === undefined ? '' : ` of ${total}${exact ? '' : '+'}`;
      console.log(`## ${shape.name}: ${shape.graphql ? `POST /graphql ${shape.query}` : `GET ${path}`} -> ${items.length} items${of}`);
      for (const sql of shown) {
        const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, costs off, timing off, summary on) ${sql}`).catch((err) => {
          throw new Error(`EXPLAIN failed (${(err as Error).message}): ${sql}`);
        });
        console.log(rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n'));
      }
      // A second at the rate first, not measured: the server's first requests of a shape open the
      // connections and prepare its statements on each of them (the steady state is what is judged).
      const steady = await steadyLoad(
        { url: `${server.url}${path}`, method: request.method, headers: request.headers, body: request.body as string | undefined },
        { rate: RATE, connections, seconds: duration, warmupSeconds: 1 },
      );
      console.log(`    (the load generator's own event loop stalled at most ${steady.loopDelayMaxMs.toFixed(0)} ms during the steady run)`);
      await sleep(500);
      const saturated = await load({ ...request, url: `${server.url}${path}` });
      await sleep(500); // requests autocannon abandoned at its deadline finish before the floor runs
      const floor = await sqlFloor(databaseUrl, statements);
      results.push({ name: shape.name, steady, saturated, floor });
    }
    console.log('');
    console.log(
      `${connections} connections, ${duration} s per run, GET /api/registry[/trending], POST /graphql: steady ${RATE} req/s (bench/steady-load.ts, after 1 s unmeasured), then saturated (autocannon); floor: the same statements through pg (prepared where the server prepares them), ${connections} clients`,
    );
    console.log(`goals: p99 <= 20 ms at a steady ${RATE} req/s for every shape; saturated req/s >= 0.7x the floor`);
    const widths = [33, 11, 11, 9, 11, 11, 8, 8];
    console.log(row(['shape', `p50 @${RATE}/s`, `p99 @${RATE}/s`, 'req/s max', 'floor req/s', 'ours/floor', 'failed', 'goal'], widths));
    for (const { name, steady, saturated, floor } of results) {
      const met = steady.p99 <= 20 && saturated.rps >= 0.7 * floor.rps;
      const failed = steady.non2xx + steady.errors + saturated.non2xx + saturated.errors;
      console.log(
        row(
          [
            name,
            steady.p50,
            steady.p99,
            saturated.rps.toFixed(0),
            floor.rps.toFixed(0),
            `${(saturated.rps / floor.rps).toFixed(2)}x`,
            failed,
            met ? 'met' : 'not met',
          ],
          widths,
        ),
      );
    }
    await server.stop();
  }),
);
