/**
 * `npm run bench:peer`: our GraphQL against PostGraphile v4 on the same tables, the same data and the same
 * machine, in one run.
 *
 * - Makes a database `bw_bench_<random>` on the DATABASE_URL server; our server (dist/src/main.js, a
 *   child process, NODE_ENV=production) migrates it; the fork tree is seeded with SQL: 1 root, 20 forks,
 *   400 forks of forks, all public.
 * - Installs PostGraphile 4.14 into a temporary folder with `npm install --prefix` (it is not a project
 *   dependency) and starts its CLI, as a child process too, on the same database (`-s public`, no default
 *   mutations, no query log).
 * - Checks both answer the same tree, then alternates autocannon runs between the two (ours, peer, ours,
 *   peer...) on the 3-level fork-tree query, and prints req/s and p99 of each and the ratio ours/peer.
 *
 * Our server runs with its default limits (the tree is within the 500,000-node limit). Environment:
 * DATABASE_URL (required), BENCH_DURATION (5 s per run), BENCH_ROUNDS (2), BENCH_CONNECTIONS (10),
 * POSTGRAPHILE_DIR (where to install it; default a folder in the OS temp dir), BENCH_CPU_PROF (a folder:
 * our server writes a CPU profile there when it stops).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { adminQuery, withDatabase } from '../src/platform/database';
import { cleanupOnSignal, connections, duration, freePort, graphqlLoad, load, machineLine, row, run, serverProcess, sleep, type LoadResult } from './harness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BREADTH = 20;
const POSTGRAPHILE_VERSION = '4.14.1';
const HOST = '127.0.0.1';

const OURS = `query ForkTree($id: ID!) {
  blueprint(id: $id) { id name
    forks(first: 50) { totalCount edges { node { id name stars
      forks(first: 50) { totalCount edges { node { id name stars
        forks(first: 50) { totalCount } } } } } } } }
}`;

// PostGraphile's names for the same table and its self-reference: blueprintById, blueprintsByForkedFromId.
const PEER = `query ForkTree($id: UUID!) {
  blueprintById(id: $id) { id name
    blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ID_ASC]) { totalCount edges { node { id name starsCount
      blueprintsByForkedFromId(first: 50, orderBy: [CREATED_AT_ASC, ID_ASC]) { totalCount edges { node { id name starsCount
        blueprintsByForkedFromId(first: 50) { totalCount } } } } } } } }
}`;

const children: ChildProcess[] = [];

async function waitFor(url: string, init: RequestInit, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, init);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${what} did not start`);
}

/** PostGraphile 4.14 in its own folder (reused when already there). */
function installPostGraphile(): string {
  const dir = process.env.POSTGRAPHILE_DIR ?? path.join(os.tmpdir(), `bw-postgraphile-${POSTGRAPHILE_VERSION}`);
  const cli = path.join(dir, 'node_modules', 'postgraphile', 'cli.js');
  if (!existsSync(cli)) {
    console.log(`installing postgraphile@${POSTGRAPHILE_VERSION} into ${dir} ...`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `postgraphile@${POSTGRAPHILE_VERSION}`], { stdio: 'ignore' });
  }
  return cli;
}

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
  await db.query('vacuum analyze');
  return root;
}

interface TreeAnswer {
  nodes: number;
  names: string[];
  bytes: number;
}

/** Runs the query once and flattens the tree, so both servers can be checked to answer the same. */
async function answer(url: string, query: string, id: string, peer: boolean, token?: string): Promise<TreeAnswer> {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables: { id } }) });
  const text = await res.text();
  const body = JSON.parse(text) as { data?: any; errors?: unknown };
  if (body.errors || !body.data) throw new Error(`${peer ? 'peer' : 'ours'}: ${text.slice(0, 400)}`);
  const forksOf = (n: any) => (peer ? n.blueprintsByForkedFromId : n.forks);
  const root = peer ? body.data.blueprintById : body.data.blueprint;
  const names: string[] = [root.name];
  for (const e1 of forksOf(root).edges) {
    names.push(e1.node.name);
    for (const e2 of forksOf(e1.node).edges) {
      names.push(e2.node.name);
      if (forksOf(e2.node).totalCount !== 0) throw new Error('a grandchild has forks');
    }
  }
  return { nodes: names.length, names, bytes: text.length };
}

function mean(results: LoadResult[], key: 'rps' | 'p99' | 'p50'): number {
  return results.reduce((sum, r) => sum + r[key], 0) / results.length;
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server; the benchmark makes (and drops) its own database there.');
  const dbName = `bw_bench_${randomBytes(5).toString('hex')}`;
  const databaseUrl = withDatabase(serverUrl, dbName);
  const db = new Client({ connectionString: databaseUrl });
  let stopOurs = async () => undefined as void;
  const cleanup = async () => {
    for (const child of children) child.kill('SIGTERM');
    await stopOurs();
    await db.end().catch(() => undefined);
    await sleep(500);
    await adminQuery(serverUrl, `drop database if exists ${dbName} with (force)`).catch((err) => console.error('could not drop', dbName, err));
  };
  cleanupOnSignal(cleanup);
  try {
    const cli = installPostGraphile();
    await adminQuery(serverUrl, `create database ${dbName}`);

    const server = await serverProcess(databaseUrl);
    stopOurs = server.stop;
    const ourUrl = server.url;

    await db.connect();
    const rootId = await seedTree(db);
    // `blueprint` needs a bearer token (docs/api.md, Authentication); the peer serves the table openly.
    const session = await fetch(`${ourUrl}/api/agent/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"bench"}' });
    const { token } = (await session.json()) as { token: string };
    const { rows: version } = await db.query<{ server_version: string }>('show server_version');

    const peerPort = await freePort();
    const peer = spawn(
      process.execPath,
      [
        cli,
        '-c',
        databaseUrl,
        '-s',
        'public',
        '--host',
        HOST,
        '--port',
        String(peerPort),
        '--disable-default-mutations',
        '--disable-query-log',
        '--no-setof-functions-contain-nulls',
      ],
      { env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    children.push(peer);
    const peerUrl = `http://${HOST}:${peerPort}`;
    await waitFor(`${peerUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' }, 'PostGraphile');

    console.log('# bench/peer: the 3-level fork tree, ours vs PostGraphile v4 on the same tables');
    console.log(`${machineLine()}, PostgreSQL ${version[0]!.server_version}, database ${dbName}`);
    console.log(
      `peer: postgraphile@${POSTGRAPHILE_VERSION} CLI (-s public --disable-default-mutations --disable-query-log); ours: dist/src/main.js, NODE_ENV=production, default limits`,
    );
    console.log('The machine is shared with other jobs: compare the figures of this run with each other, not with other runs.');
    console.log('');

    const ourAnswer = await answer(`${ourUrl}/graphql`, OURS, rootId, false, token);
    const peerAnswer = await answer(`${peerUrl}/graphql`, PEER, rootId, true);
    if (ourAnswer.nodes !== 1 + BREADTH + BREADTH * BREADTH || JSON.stringify(ourAnswer.names) !== JSON.stringify(peerAnswer.names))
      throw new Error(`the answers differ: ours ${ourAnswer.nodes} blueprints, peer ${peerAnswer.nodes}`);
    console.log(
      `both answer the same tree: ${ourAnswer.nodes} blueprints (ours ${(ourAnswer.bytes / 1024).toFixed(1)} KiB, peer ${(peerAnswer.bytes / 1024).toFixed(1)} KiB)`,
    );
    console.log('');

    const results: { ours: LoadResult[]; peer: LoadResult[] } = { ours: [], peer: [] };
    const warm = { duration: 1 };
    await load({ ...graphqlLoad(`${ourUrl}/graphql`, OURS, { id: rootId }, token), ...warm });
    await load({ ...graphqlLoad(`${peerUrl}/graphql`, PEER, { id: rootId }), ...warm });
    const widths = [14, 10, 10, 10, 10, 8];
    console.log(`autocannon, ${connections} connections, ${duration} s per run, alternating, ${ROUNDS} rounds (after 1 s of warm-up each)`);
    console.log(row(['run', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx'], widths));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of ['ours', 'peer'] as const) {
        const r = await load(
          target === 'ours' ? graphqlLoad(`${ourUrl}/graphql`, OURS, { id: rootId }, token) : graphqlLoad(`${peerUrl}/graphql`, PEER, { id: rootId }),
        );
        results[target].push(r);
        console.log(row([`${target} #${round}`, r.rps.toFixed(1), r.p50, r.p99, r.total, r.non2xx + r.errors], widths));
        await sleep(1000);
      }
    }
    console.log('');
    const o = mean(results.ours, 'rps');
    const p = mean(results.peer, 'rps');
    console.log(
      `ours: ${o.toFixed(1)} req/s, p99 ${mean(results.ours, 'p99').toFixed(0)} ms | PostGraphile: ${p.toFixed(1)} req/s, p99 ${mean(results.peer, 'p99').toFixed(0)} ms | ours/peer = ${(o / p).toFixed(2)}x (goal >= 1.0)`,
    );
  } finally {
    await cleanup();
  }
}

run(main);
