/**
 * `npm run bench:graphql-overhead`: what our HTTP GraphQL stack (Fastify + Apollo Server 5 + our plugins:
 * limits, cost, error masking) costs over plain graphql-js on the same schema, resolvers, database and
 * request context, in one run. Both are sent the same bearer token (`blueprint` needs one); ours runs with
 * its default limits.
 *
 * A third server, "bare", is Fastify + Apollo Server with nothing of ours (no plugins, hooks or limits) and
 * the same request context: the libraries' own share of the overhead, beside what our code adds.
 *
 * The plain server is `node:http` + `parse`/`validate` (cached per document text, like Apollo's document
 * store) + `execute` of graphql-js, with the same `createRequestContext` per request. All three run in one
 * child process (bench/graphql-overhead-servers.ts: NODE_ENV=production, the server's Node flags, no SQL
 * counting), so the load generator, autocannon in this process, shares none of their event loop. It
 * alternates between them on two documents: a one-blueprint read (where framework overhead shows most) and
 * the 3-level fork tree (1 + 20 + 400 blueprints). Goal (issue 27): ours >= 0.9x of bare Fastify + Apollo
 * (Apollo stays, so our own code is judged against the bare libraries).
 * Environment: DATABASE_URL (required), BENCH_DURATION (5 s per run), BENCH_ROUNDS (3), BENCH_WARMUP (3 s of
 * load on each server and document before the rounds), BENCH_CONNECTIONS (10), BENCH_CPU_PROF
 * (a folder: the server child writes a CPU profile there when it stops).
 */
import path from 'node:path';
import { Client } from 'pg';
import type { OverheadServers } from './graphql-overhead-servers';
import {
  agentSession,
  connections,
  duration,
  graphqlLoad,
  load,
  measuredChild,
  printBenchHeader,
  row,
  run,
  sleep,
  withBenchDatabase,
  type LoadResult,
} from './harness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

const SMALL = `query One($id: ID!) { blueprint(id: $id) { id name stars forksCount createdAt } }`;
const TREE = `query ForkTree($id: ID!) {
  blueprint(id: $id) { id name
    forks(first: 50) { totalCount edges { node { id name stars
      forks(first: 50) { totalCount edges { node { id name stars
        forks(first: 50) { totalCount } } } } } } } }
}`;

/** The three servers in their child process, on `databaseUrl` (our app migrates it as it starts). */
async function startServers(databaseUrl: string): Promise<{ urls: OverheadServers; stop(): Promise<void> }> {
  const { child, exited, stop } = measuredChild(path.join(__dirname, 'graphql-overhead-servers.js'), databaseUrl, { PORT: '0' });
  const urls = await Promise.race([
    new Promise<OverheadServers>((resolve) => child.once('message', (m) => resolve(m as OverheadServers))),
    exited.then(() => {
      throw new Error('the server child (bench/graphql-overhead-servers.js) exited before it listened');
    }),
    sleep(120_000).then(() => {
      throw new Error('the server child did not listen within 120 s');
    }),
  ]).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { urls, stop };
}

/** root -> 20 forks -> 20 forks each, public: the tree both documents read. Returns the root's id. */
async function seedTree(db: Client): Promise<string> {
  const owner = (await db.query<{ id: string }>(`insert into principal (id, kind, name) values (gen_random_uuid(), 'user', 'bench') returning id`)).rows[0]!.id;
  const root = (
    await db.query<{ id: string }>(
      `insert into blueprint (id, slug, name, visibility, owner_id, plan) values (gen_random_uuid(), 'root', 'Root', 'public', $1, '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}') returning id`,
      [owner],
    )
  ).rows[0]!.id;
  let parents = [root];
  for (let level = 1; level <= 2; level++) {
    const { rows } = await db.query<{ id: string }>(
      `insert into blueprint (id, slug, name, visibility, owner_id, plan, forked_from_id, created_at)
       select gen_random_uuid(), p.slug || '-' || g, 'Fork ' || g, 'public', p.owner_id, p.plan, p.id, clock_timestamp()
         from blueprint p cross join generate_series(1, 20) g where p.id = any($1::uuid[]) returning id`,
      [parents],
    );
    parents = rows.map((r) => r.id);
  }
  await db.query('vacuum analyze');
  return root;
}

async function main(): Promise<void> {
  await withBenchDatabase(async (d, stopBeforeDrop) => {
    const servers = await startServers(d.databaseUrl);
    stopBeforeDrop(servers.stop);
    const { ours, plain, bare } = servers.urls;
    const { token } = await agentSession(new URL(ours).origin);
    const root = await seedTree(d.db);
    await printBenchHeader('bench/graphql-overhead', d);
    // Same answers from all three, before measuring.
    for (const query of [SMALL, TREE]) {
      const answers = await Promise.all(
        [ours, plain, bare].map(async (url) =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body: JSON.stringify({ query, variables: { id: root } }),
            })
          ).json(),
        ),
      );
      if (answers.some((a) => JSON.stringify(a) !== JSON.stringify(answers[0])))
        throw new Error(`the answers differ: ${JSON.stringify(answers).slice(0, 300)}`);
    }
    console.log(
      `autocannon in this process, ${connections} connections, ${duration} s per run, alternating ours / plain graphql-js / bare Fastify + Apollo (one server child: same schema, resolvers, database pool and Node flags)`,
    );
    const widths = [38, 10, 8, 8];
    console.log(row(['run', 'req/s', 'p50 ms', 'p99 ms'], widths));
    // Load on each first (BENCH_WARMUP seconds): the first seconds of a fresh process run unoptimised code,
    // and the answer check above is only one request. With one second, the first round still served half
    // of the second's req/s.
    for (const query of [SMALL, TREE]) for (const url of [ours, plain, bare]) await load({ ...graphqlLoad(url, query, { id: root }, token), duration: WARMUP });
    const summary: string[] = [];
    for (const [name, query] of [
      ['one blueprint', SMALL],
      ['fork tree (421 blueprints)', TREE],
    ] as const) {
      const results: Record<keyof OverheadServers, LoadResult[]> = { ours: [], plain: [], bare: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        for (const target of ['ours', 'plain', 'bare'] as const) {
          const r = await load(graphqlLoad(servers.urls[target], query, { id: root }, token));
          if (r.non2xx || r.errors) throw new Error(`${name}, ${target}: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
          results[target].push(r);
          console.log(row([`${name}: ${target} #${round}`, r.rps.toFixed(0), r.p50, r.p99], widths));
          await sleep(500);
        }
      }
      const avg = (rs: LoadResult[]) => rs.reduce((s, r) => s + r.rps, 0) / rs.length;
      summary.push(
        `${name}: ours ${avg(results.ours).toFixed(0)} req/s, plain graphql-js ${avg(results.plain).toFixed(0)} req/s, ours/plain = ${(avg(results.ours) / avg(results.plain)).toFixed(2)}x`,
        `  bare Fastify + Apollo ${avg(results.bare).toFixed(0)} req/s: bare/plain = ${(avg(results.bare) / avg(results.plain)).toFixed(2)}x (the libraries' own share), ours/bare = ${(avg(results.ours) / avg(results.bare)).toFixed(2)}x (what our code adds; goal >= 0.9)`,
      );
    }
    console.log('');
    for (const line of summary) console.log(line);
  });
}

run(main);
