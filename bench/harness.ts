/**
 * What the benchmarks share: a fresh database `bw_bench_<random>` on the DATABASE_URL server, the real app
 * booted on it with the limits a load run needs, a `pg` client, short autocannon runs, and cleanup (app,
 * client, database) however the run ends.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { startApp, type RunningApp } from '../src/app';
import { defaultDatabaseSettings, defaultLimits, type Config, type Limits } from '../src/platform/config';
import { adminQuery, withDatabase } from '../src/platform/sql/database';
import { childNodeFlags, cpuMsOf, freePort, helperCpu, helperCpuMsSince, latencyAt, sleep } from './basics';

export { cpuMsOf, freePort, sleep };

export const duration = Number(process.env.BENCH_DURATION ?? 5);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface Bench {
  app: RunningApp;
  databaseUrl: string;
  dbName: string;
  db: Client;
  /** An agent token and its principal id (made over REST). */
  token: string;
  principalId: string;
}

/** Machine facts printed at the top of every run (the machine is shared: the load average says how busy). */
export function machineLine(): string {
  const cpus = os.cpus();
  return `node ${process.version}, ${cpus.length} CPUs (${cpus[0]?.model ?? 'unknown'}), load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

/** Interrupted (Ctrl-C, or a `timeout` that sends SIGTERM): run `cleanup` (drop the database) anyway. */
export function cleanupOnSignal(cleanup: () => Promise<void>): void {
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void cleanup().finally(() => process.exit(143)));
}

/** A bench's own database and a `pg` client on it (`withBenchDatabase`). */
export interface BenchDatabase {
  dbName: string;
  databaseUrl: string;
  db: Client;
}

/**
 * Runs `body` on a fresh database `bw_bench_<random>` of the DATABASE_URL server (or `serverUrl`), with a
 * `pg` client on it, then drops it however the run ends (an error, Ctrl-C, a `timeout`'s SIGTERM). What
 * `body` hands to `stopBeforeDrop` (a server on that database) is stopped first, the last handed first.
 */
export async function withBenchDatabase(
  body: (d: BenchDatabase, stopBeforeDrop: (stop: () => Promise<void>) => void) => Promise<void>,
  serverUrl = process.env.DATABASE_URL,
): Promise<void> {
  if (!serverUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server; the benchmark makes (and drops) its own database there.');
  const dbName = `bw_bench_${randomBytes(5).toString('hex')}`;
  const databaseUrl = withDatabase(serverUrl, dbName);
  const stops: Array<() => Promise<void>> = [];
  let db: Client | undefined;
  // Once, however often it is asked for: after a signal the body fails too (its server is stopping) and its
  // `finally` asks again, and that second call must wait for the servers to stop, not drop at once.
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await db?.end().catch(() => undefined);
      for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
      await adminQuery(serverUrl, `drop database if exists ${dbName} with (force)`).catch((err) => console.error('could not drop', dbName, err));
    })());
  cleanupOnSignal(cleanup);
  try {
    await adminQuery(serverUrl, `create database ${dbName}`);
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    await body({ dbName, databaseUrl, db }, (stop) => stops.push(stop));
  } finally {
    await cleanup();
  }
}

/** The lines a run starts with: its title, the machine, PostgreSQL's version and the bench's database. */
export async function printBenchHeader(title: string, { db, dbName }: BenchDatabase): Promise<void> {
  const { rows } = await db.query<{ server_version: string }>('show server_version');
  console.log(`# ${title}`);
  console.log(`${machineLine()}, PostgreSQL ${rows[0]!.server_version}, database ${dbName}`);
  console.log('The machine is shared with other jobs: compare figures of one run with each other, not across runs.');
  console.log('');
}

/** A new agent session, made over REST on the server at `baseUrl`: its token and principal id. */
export async function agentSession(baseUrl: string): Promise<{ token: string; principalId: string }> {
  const res = await fetch(`${baseUrl}/api/agent/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  const s = (await res.json()) as { token: string; session_id: string };
  return { token: s.token, principalId: s.session_id };
}

/**
 * The config of our app booted in a bench's own process (for setup, statement counts and EXPLAIN): on
 * 127.0.0.1, any free port, no practical rate limit, `limits` over the defaults. `BENCH_SQL_COUNT=0`: no
 * per-request statement-counting scope (an AsyncLocalStorage; what production runs).
 */
export function benchAppConfig(databaseUrl: string, limits: Partial<Limits> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    dataDir: '.data',
    logLevel: 'warn',
    exposeSqlCount: process.env.BENCH_SQL_COUNT !== '0',
    limits: { ...defaultLimits, rateLimitPerMinute: 1_000_000_000, ...limits },
    database: defaultDatabaseSettings,
  };
}

/** Runs `body` against a freshly booted app on a fresh database, then tears everything down. */
export async function withBench(title: string, limits: Partial<Limits>, body: (b: Bench) => Promise<void>): Promise<void> {
  await withBenchDatabase(async (d, stopBeforeDrop) => {
    const app = await startApp(benchAppConfig(d.databaseUrl, limits));
    stopBeforeDrop(() => app.close());
    const session = await agentSession(app.url);
    await printBenchHeader(title, d);
    await body({ app, ...d, ...session });
  });
}

/**
 * A server child a bench measures, configured as a deployment runs ours: `entry` (a compiled module) with
 * NODE_ENV=production, no SQL counting, warn-level logs, no practical rate limit, on 127.0.0.1 over
 * `databaseUrl`, with the server's Node flags (`childNodeFlags`), and `env` over that (its `PORT`, at
 * least). `stop()` sends SIGTERM and waits for the exit (at most 15 s).
 */
export function measuredChild(
  entry: string,
  databaseUrl: string,
  env: Record<string, string>,
): { child: ChildProcess; exited: Promise<void>; stop(): Promise<void> } {
  const child = fork(entry, [], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      EXPOSE_SQL_COUNT: '0',
      ...env,
    },
    execArgv: childNodeFlags(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
  };
  return { child, exited, stop };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Our server as a deployment runs it, for the load runs: `dist/src/main.js` in a child process with
 * NODE_ENV=production and no SQL counting, on `databaseUrl` (already migrated or not: it migrates). The
 * load generator (autocannon, in the bench's own process) then never shares the server's event loop, as
 * it does not share PostGraphile's or PostgreSQL's. `BENCH_CPU_PROF` and `BENCH_NODE_FLAGS` apply to it
 * (`childNodeFlags`, bench/basics.ts).
 */
export async function serverProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const { child, stop } = measuredChild(path.join(__dirname, '..', 'src', 'main.js'), databaseUrl, { PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child, stop };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('our server (dist/src/main.js) did not start');
    }
    await sleep(250);
  }
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run (defaults: BENCH_CONNECTIONS connections for BENCH_DURATION seconds). */
export async function load(options: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections, duration, ...options });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

/**
 * A load run with the CPU time spent on it per request (µs): by the server process `pid`, by every
 * PostgreSQL process (the database's share of the work, on the same cores), and by this process (the load
 * generator). The three together are what a request costs the machine.
 */
export async function loadWithCpu(
  options: autocannon.Options,
  pid: number | undefined,
): Promise<LoadResult & { cpuUsPerRequest: number; pgUsPerRequest: number; clientUsPerRequest: number }> {
  const before = { server: cpuMsOf(pid), helpers: helperCpu(), client: process.cpuUsage() };
  const r = await load(options);
  const client = process.cpuUsage(before.client);
  const per = (ms: number) => (ms * 1000) / Math.max(1, r.total);
  return {
    ...r,
    cpuUsPerRequest: per(cpuMsOf(pid) - before.server),
    pgUsPerRequest: per(helperCpuMsSince(before.helpers).postgres),
    clientUsPerRequest: per((client.user + client.system) / 1000),
  };
}

/** A JSON POST of a GraphQL document, as autocannon options. */
export function graphqlLoad(url: string, query: string, variables: Record<string, unknown>, token?: string): autocannon.Options {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  };
}

export function row(cells: Array<string | number>, widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join(' | ');
}

/** Exits 0 or prints the error and exits 1. */
export function run(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/**
 * The floor: one hand-written SQL statement that builds the same answer as JSON inside PostgreSQL, sent
 * through `pg` by `concurrency` clients in a loop for `seconds` (no HTTP, no GraphQL). Returns
 * statements per second and latency percentiles, to print beside the server's req/s.
 */
export async function floor(
  databaseUrl: string,
  sql: string,
  params: unknown[],
  seconds = duration,
  concurrency = connections,
): Promise<LoadResult & { bytes: number }> {
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: databaseUrl, max: concurrency });
  const latencies: number[] = [];
  let bytes: number;
  try {
    const first = await pool.query(sql, params);
    bytes = JSON.stringify(first.rows[0]).length;
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < end) {
          const t = performance.now();
          const res = await pool.query(sql, params);
          JSON.stringify(res.rows[0]); // a server would serialise it too
          latencies.push(performance.now() - t);
        }
      }),
    );
  } finally {
    await pool.end();
  }
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: latencyAt(latencies, 0.5),
    p99: latencyAt(latencies, 0.99),
    total: latencies.length,
    non2xx: 0,
    errors: 0,
    bytes,
  };
}
