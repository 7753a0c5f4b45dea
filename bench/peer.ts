/**
 * `npm run bench:peer`: our GraphQL against PostGraphile v4 and v5 (Grafast) on the same tables, the same
 * data and the same machine, in one run, on two reads: the 3-level fork tree and one blueprint (id, name,
 * stars).
 *
 * - Makes a database `bw_bench_<random>` on the DATABASE_URL server; our server (dist/src/main.js, a
 *   child process, NODE_ENV=production) migrates it; the fork tree is seeded with SQL: 1 root, 20 forks,
 *   400 forks of forks, all public.
 * - Installs PostGraphile 4.14 and 5 into temporary folders (bench/peers.ts; neither is a project
 *   dependency) and starts each as a child process on the same database.
 * - Checks all three answer the same tree and the same blueprint, then alternates autocannon runs between
 *   them (ours, v4, v5, ours...) and prints req/s and p99 of each and the ratios ours/peer.
 * - Measures twice: first on **fresh rows**, before PostgreSQL has statistics for them (right after they
 *   are written, as after a bulk import or on a new deployment; this machine runs with autovacuum off, so
 *   nothing analyzes them unless asked), then after `VACUUM ANALYZE`.
 *
 * Our server runs with its default limits (the tree is within the 500,000-node limit). Environment:
 * DATABASE_URL (required), BENCH_DURATION (5 s per run), BENCH_ROUNDS (2), BENCH_CONNECTIONS (10),
 * POSTGRAPHILE_DIR / POSTGRAPHILE5_DIR (where to install v4 / v5; default folders in the OS temp dir),
 * BENCH_CPU_PROF (a folder: our server writes a CPU profile there when it stops).
 */
import type { Client } from 'pg';
import {
  connections,
  duration,
  graphqlLoad,
  load,
  loadWithCpu,
  machineLine,
  row,
  run,
  serverProcess,
  sleep,
  withBenchDatabase,
  type LoadResult,
} from './harness';
import { installPeers, POSTGRAPHILE_V4, POSTGRAPHILE_V5, startV4, startV5, type Peer } from './peers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BREADTH = 20;

type Target = 'ours' | 'v4' | 'v5';
const TARGETS: Target[] = ['ours', 'v4', 'v5'];

/** Each server's spelling of a read, and where its answer keeps the root and the forks. */
interface Shape {
  query: string;
  root: string;
  forks: string;
  stars: string;
  id: string;
}

const TREE: Record<Target, Shape> = {
  ours: {
    query: `query ForkTree($id: ID!) {
  blueprint(id: $id) { id name
    forks(first: 50) { totalCount edges { node { id name stars
      forks(first: 50) { totalCount edges { node { id name stars
        forks(first: 50) { totalCount } } } } } } } }
}`,
    root: 'blueprint',
    forks: 'forks',
    stars: 'stars',
    id: 'id',
  },
  // PostGraphile's names for the same table and its self-reference: blueprintById, blueprintsByForkedFromId.
  v4: {
    query: `query ForkTree($id: UUID!) {
  blueprintById(id: $id) { id name
    blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ID_ASC]) { totalCount edges { node { id name starsCount
      blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ID_ASC]) { totalCount edges { node { id name starsCount
        blueprintsByForkedFromId(first: 50) { totalCount } } } } } } } }
}`,
    root: 'blueprintById',
    forks: 'blueprintsByForkedFromId',
    stars: 'starsCount',
    id: 'id',
  },
  // v5 names the primary key `rowId` (its `id` is the global Node ID).
  v5: {
    query: `query ForkTree($id: UUID!) {
  blueprintByRowId(rowId: $id) { rowId name
    blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ROW_ID_ASC]) { totalCount edges { node { rowId name starsCount
      blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ROW_ID_ASC]) { totalCount edges { node { rowId name starsCount
        blueprintsByForkedFromId(first: 50) { totalCount } } } } } } } }
}`,
    root: 'blueprintByRowId',
    forks: 'blueprintsByForkedFromId',
    stars: 'starsCount',
    id: 'rowId',
  },
};

const ONE: Record<Target, string> = {
  ours: `query One($id: ID!) { blueprint(id: $id) { id name stars } }`,
  v4: `query One($id: UUID!) { blueprintById(id: $id) { id name starsCount } }`,
  v5: `query One($id: UUID!) { blueprintByRowId(rowId: $id) { rowId name starsCount } }`,
};

const children: Peer[] = [];

/** root -> 20 forks -> 20 forks each, public, owned by one principal: the rows a fork writes. */
async function seedTree(db: Client): Promise<string> {
  const owner = (await db.query<{ id: string }>(`insert into principal (id, kind, name) values (gen_random_uuid(), 'user', 'bench') returning id`)).rows[0]!.id;
  const plan = {
    modules: [{ key: 'api', name: 'API', summary: 'HTTP API', kind: 'backend', dependsOn: [] }],
    steps: [{ key: 's', moduleKey: 'api', title: 'Build', instructions: 'Build it', acceptance: ['works'] }],
    configuration: {},
    designSystem: {},
  };
  const root = (
    await db.query<{ id: string }>(
      `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, module_count, step_count)
       values (gen_random_uuid(), 'tree-root', 'Tree root', 'The root of the bench tree', '{bench}', 'public', $1, $2, 1, 1) returning id`,
      [owner, plan],
    )
  ).rows[0]!.id;
  let parents = [root];
  for (let level = 1; level <= 2; level++) {
    const { rows } = await db.query<{ id: string }>(
      `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, forked_from_id, module_count, step_count, stars_count, created_at, updated_at)
       select gen_random_uuid(), p.slug || '-' || g, 'Fork ' || $3 || '.' || g, p.description, p.tags, 'public', p.owner_id, p.plan, p.id, 1, 1, g, clock_timestamp(), clock_timestamp()
         from blueprint p cross join generate_series(1, $2::int) g where p.id = any($1::uuid[]) order by p.created_at, g returning id`,
      [parents, BREADTH, level],
    );
    const ids = rows.map((r) => r.id);
    await db.query(
      `insert into lineage_link (id, parent_id, child_id, kind, created_at) select gen_random_uuid(), forked_from_id, id, 'fork', created_at from blueprint where id = any($1::uuid[])`,
      [ids],
    );
    await db.query('update blueprint set forks_count = $2 where id = any($1::uuid[])', [parents, BREADTH]);
    parents = ids;
  }
  return root;
}

/** POSTs a document and returns its `data`, failing on errors. */
async function post(url: string, query: string, id: string, token?: string): Promise<{ data: any; bytes: number }> {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables: { id } }) });
  const text = await res.text();
  const body = JSON.parse(text) as { data?: any; errors?: unknown };
  if (body.errors || !body.data) throw new Error(`${url}: ${text.slice(0, 400)}`);
  return { data: body.data, bytes: text.length };
}

/** The tree flattened to "id name stars" lines (root first, then each fork and its forks in order). */
async function treeAnswer(url: string, shape: Shape, id: string, token?: string): Promise<{ lines: string[]; bytes: number }> {
  const { data, bytes } = await post(url, shape.query, id, token);
  const root = data[shape.root];
  const lines: string[] = [`${root[shape.id]} ${root.name}`];
  for (const e1 of root[shape.forks].edges) {
    lines.push(`${e1.node[shape.id]} ${e1.node.name} ${e1.node[shape.stars]}`);
    for (const e2 of e1.node[shape.forks].edges) {
      lines.push(`${e2.node[shape.id]} ${e2.node.name} ${e2.node[shape.stars]}`);
      if (e2.node[shape.forks].totalCount !== 0) throw new Error('a grandchild has forks');
    }
    if (e1.node[shape.forks].totalCount !== BREADTH) throw new Error('a fork does not count its forks');
  }
  return { lines, bytes };
}

type Measured = LoadResult & { cpuUsPerRequest: number; pgUsPerRequest: number; clientUsPerRequest: number };

function mean(results: Measured[], key: 'rps' | 'p99' | 'p50' | 'cpuUsPerRequest' | 'pgUsPerRequest' | 'clientUsPerRequest'): number {
  return results.reduce((sum, r) => sum + r[key], 0) / results.length;
}

interface Servers {
  urls: Record<Target, string>;
  /** Each server's process id, for its CPU time per request. */
  pids: Record<Target, number | undefined>;
  token: string;
  rootId: string;
}

/** Every server answers the same tree and the same blueprint (checked before each measured state). */
async function checkAnswers({ urls, token, rootId }: Servers): Promise<void> {
  const trees = await Promise.all(TARGETS.map((t) => treeAnswer(urls[t], TREE[t], rootId, t === 'ours' ? token : undefined)));
  if (trees[0]!.lines.length !== 1 + BREADTH + BREADTH * BREADTH || trees.some((t) => JSON.stringify(t.lines) !== JSON.stringify(trees[0]!.lines)))
    throw new Error(`the trees differ: ${trees.map((t) => t.lines.length).join(' / ')} blueprints`);
  const ones = await Promise.all(TARGETS.map(async (t) => Object.values((await post(urls[t], ONE[t], rootId, t === 'ours' ? token : undefined)).data)[0]));
  const flat = ones.map((o: any) => Object.values(o).join(' '));
  if (flat.some((f) => f !== flat[0])) throw new Error(`the blueprints differ: ${flat.join(' / ')}`);
  console.log(
    `all three answer the same tree (${trees[0]!.lines.length} blueprints; ${trees.map((t, i) => `${TARGETS[i]} ${(t.bytes / 1024).toFixed(1)} KiB`).join(', ')}) and the same blueprint (${flat[0]})`,
  );
}

/** Alternating runs of one read on every server; returns the summary lines. */
async function measure(state: string, read: string, docs: Record<Target, string>, { urls, pids, token, rootId }: Servers): Promise<string[]> {
  const options = (t: Target) => graphqlLoad(urls[t], docs[t], { id: rootId }, t === 'ours' ? token : undefined);
  for (const t of TARGETS) await load({ ...options(t), duration: 1 });
  const results: Record<Target, Measured[]> = { ours: [], v4: [], v5: [] };
  const widths = [30, 10, 10, 10, 10, 8, 12, 12, 12];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of TARGETS) {
      const r = await loadWithCpu(options(t), pids[t]);
      results[t].push(r);
      console.log(
        row(
          [
            `${read}, ${t} #${round}`,
            r.rps.toFixed(1),
            r.p50,
            r.p99,
            r.total,
            r.non2xx + r.errors,
            r.cpuUsPerRequest.toFixed(0),
            r.pgUsPerRequest.toFixed(0),
            r.clientUsPerRequest.toFixed(0),
          ],
          widths,
        ),
      );
      await sleep(500);
    }
  }
  const rps = (t: Target) => mean(results[t], 'rps');
  const p99 = (t: Target) => mean(results[t], 'p99').toFixed(0);
  const cpu = (t: Target) => mean(results[t], 'cpuUsPerRequest');
  const pg = (t: Target) => mean(results[t], 'pgUsPerRequest');
  const client = (t: Target) => mean(results[t], 'clientUsPerRequest');
  const machine = (t: Target) => cpu(t) + pg(t) + client(t);
  return [
    `${state}, ${read}: ours ${rps('ours').toFixed(1)} req/s (p99 ${p99('ours')} ms) | v4 ${rps('v4').toFixed(1)} (p99 ${p99('v4')}) | v5 ${rps('v5').toFixed(1)} (p99 ${p99('v5')}) | ours/v4 = ${(rps('ours') / rps('v4')).toFixed(2)}x, ours/v5 = ${(rps('ours') / rps('v5')).toFixed(2)}x`,
    `${state}, ${read}, server CPU per request: ours ${cpu('ours').toFixed(0)} µs | v4 ${cpu('v4').toFixed(0)} µs | v5 ${cpu('v5').toFixed(0)} µs | v5/ours = ${(cpu('v5') / cpu('ours')).toFixed(2)}x (above 1: ours costs less)`,
    `${state}, ${read}, PostgreSQL CPU per request: ours ${pg('ours').toFixed(0)} µs | v4 ${pg('v4').toFixed(0)} µs | v5 ${pg('v5').toFixed(0)} µs; load generator: ours ${client('ours').toFixed(0)} | v4 ${client('v4').toFixed(0)} | v5 ${client('v5').toFixed(0)} µs`,
    `${state}, ${read}, the machine's CPU per request (server + PostgreSQL + load generator): ours ${machine('ours').toFixed(0)} µs | v4 ${machine('v4').toFixed(0)} | v5 ${machine('v5').toFixed(0)} | v5/ours = ${(machine('v5') / machine('ours')).toFixed(2)}x`,
  ];
}

async function main(): Promise<void> {
  await withBenchDatabase(async ({ databaseUrl, dbName, db }, stopBeforeDrop) => {
    const dirs = installPeers();
    // Stopped before our server (the last handed is stopped first); a moment for the peers to let go.
    const server = await serverProcess(databaseUrl);
    stopBeforeDrop(server.stop);
    stopBeforeDrop(async () => {
      for (const peer of children) peer.child.kill('SIGTERM');
      await sleep(500);
    });

    const rootId = await seedTree(db);
    // `blueprint` needs a bearer token (docs/api.md, Authentication); the peers serve the table openly.
    const session = await fetch(`${server.url}/api/agent/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"bench"}',
    });
    const { token } = (await session.json()) as { token: string };
    const { rows: version } = await db.query<{ server_version: string }>('show server_version');
    const { rows: autovacuum } = await db.query<{ autovacuum: string }>('show autovacuum');

    const v4 = await startV4(dirs.v4, databaseUrl);
    children.push(v4);
    const v5 = await startV5(dirs.v5, databaseUrl);
    children.push(v5);
    const servers: Servers = {
      urls: { ours: `${server.url}/graphql`, v4: v4.url, v5: v5.url },
      pids: { ours: server.child.pid, v4: v4.child.pid, v5: v5.child.pid },
      token,
      rootId,
    };

    console.log('# bench/peer: the 3-level fork tree and one blueprint, ours vs PostGraphile v4 and v5 on the same tables');
    console.log(`${machineLine()}, PostgreSQL ${version[0]!.server_version} (autovacuum ${autovacuum[0]!.autovacuum}), database ${dbName}`);
    console.log(
      `v4: postgraphile@${POSTGRAPHILE_V4} CLI (-s public --disable-default-mutations --disable-query-log); v5: postgraphile@${POSTGRAPHILE_V5}, Amber preset, grafserv/node, no mutations, PgIndexBehaviorsPlugin off; all NODE_ENV=production; ours: dist/src/main.js, default limits`,
    );
    console.log('The machine is shared with other jobs: compare the figures of this run with each other, not with other runs.');
    console.log(`autocannon, ${connections} connections, ${duration} s per run, alternating, ${ROUNDS} rounds (after 1 s of warm-up each)`);
    console.log('');

    const summary: string[] = [];
    const stats = async () =>
      (await db.query<{ n: string }>(`select count(*) as n from pg_stats where schemaname = 'public' and tablename = 'blueprint'`)).rows[0]!.n;
    for (const state of ['fresh rows (no statistics)', 'after VACUUM ANALYZE']) {
      if (state.startsWith('after')) await db.query('vacuum analyze');
      console.log(`## ${state}: ${await stats()} column statistics on blueprint`);
      await checkAnswers(servers);
      console.log(
        row(['run', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'CPU µs/req', 'PG µs/req', 'client µs'], [30, 10, 10, 10, 10, 8, 12, 12, 12]),
      );
      summary.push(...(await measure(state, 'fork tree', { ours: TREE.ours.query, v4: TREE.v4.query, v5: TREE.v5.query }, servers)));
      summary.push(...(await measure(state, 'one blueprint', ONE, servers)));
      console.log('');
    }
    for (const line of summary) console.log(line);
    console.log('goals: fork tree ours/v5 >= 2.5x after ANALYZE and >= 1.0x of both peers on fresh rows; one blueprint ours/v5 >= 1.0x');
  });
}

run(main);
