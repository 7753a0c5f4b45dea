/**
 * `npm run bench:scale`: events past one machine (DESIGN.md section 17, docs/scale.md). Prints figures,
 * asserts nothing.
 *
 * 1. Forks per second through one instance while three instances listen (each has live `blueprintActivity`
 *    subscribers on the source), beside the same writes with event publishing off (`EVENT_PUBLISHING=off`,
 *    the floor: no outbox row, no relay, no delivery). Without NATS (LISTEN/NOTIFY) and with NATS. Both
 *    sides run at once, each on a database of its own, and the load alternates between them in slices of
 *    BENCH_SLICE_MS (bench/scale-forks.ts), BENCH_DURATION seconds of slices per side.
 * 2. Cross-instance delivery: BENCH_SUBSCRIBERS (2,000) `broadcastReceived` subscribers spread over three
 *    instances, broadcasts sent through instance 0; latency from just before the POST to each receipt.
 *
 * BENCH_CPU_PROF=<dir> writes each instance's CPU profile under <dir>/instance-<n> when it stops.
 *
 * Real processes: three `dist/src/main.js` per configuration and a `nats-server -js` of its own (Debian
 * package, /usr/sbin/nats-server), all on 127.0.0.1 over a fresh database `bw_bench_<random>` of the
 * DATABASE_URL server; everything is stopped and dropped at the end, however the run ends.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { adminQuery, withDatabase } from '../src/platform/sql/database';
import { childNodeFlags, freePort, percentile, pool, sleep } from './basics';
import { describeRatio, interleavedForkRates, type ForkSide, type Side } from './scale-forks';
import { connect } from './scale-measure';

const HOST = '127.0.0.1';
/** Seconds of fork slices per side (events on, events off) and configuration. */
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 20) * 1000;
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2000);
/**
 * Activity listeners per instance, one fork-rate table each (BENCH_LISTENERS, default `1,20`). With one,
 * every instance does the whole per-event work once (receive, decide who may see it, write a frame): the
 * cost of events past one machine. With 20, the 60 sockets' writes (and their receipt by this process)
 * share the two cores with the servers: the fan-out's own cost, which bench:fanout measures on its own.
 */
const LISTENER_COUNTS = (process.env.BENCH_LISTENERS ?? '1,20').split(',').map(Number);
const SENDS = Number(process.env.BENCH_SENDS ?? 5);
/** BENCH_DELIVERY=off skips the second half (the delivery latency at BENCH_SUBSCRIBERS). */
const DELIVERY = process.env.BENCH_DELIVERY !== 'off';
/** The backplanes to measure: `postgres` (LISTEN/NOTIFY), `nats` or both (the default), comma-separated. */
const BACKPLANES = (process.env.BENCH_BACKPLANES ?? 'postgres,nats').split(',').map((b) => b.trim());
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const RUN_LIMIT_MS = 20 * 60_000;
/** A pause in which every backend flushes its statistics counters (at most 1 s apart), and late events arrive. */
const QUIET_MS = 2000;

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

async function call(base: string, method: string, url: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function ok(base: string, method: string, url: string, token?: string, body?: unknown): Promise<any> {
  const res = await call(base, method, url, token, body);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Drives the five-step `create` tool; returns the new blueprint's id. */
async function createSource(base: string, token: string): Promise<string> {
  let op = await ok(base, 'POST', '/api/tools/operations', token, { tool_type: 'create', params: {} });
  const submissions = [
    { modules: [{ key: 'api', name: 'API', kind: 'backend', summary: 'HTTP API', depends_on: [] }] },
    { steps: [{ key: 'endpoints', module_key: 'api', title: 'Endpoints', instructions: 'Build them', acceptance: ['tests pass'] }] },
    { configuration: { runtime: 'node' } },
    { design_system: {} },
    { name: 'Scale source', description: 'scale benchmark source', tags: ['bench'], visibility: 'public' },
  ];
  for (const submission of submissions) op = await ok(base, 'POST', `/api/tools/operations/${op.operation_id}/submit`, token, { token: op.token, submission });
  return op.result.blueprint_ids[0] as string;
}

async function startNats(): Promise<string> {
  const port = await freePort();
  const store = mkdtempSync(path.join(tmpdir(), 'bw-bench-nats-'));
  const child = spawn(NATS_SERVER, ['-js', '-a', HOST, '-p', String(port), '-sd', store], { stdio: 'ignore' });
  children.push(child);
  cleanups.push(() => rmSync(store, { recursive: true, force: true }));
  await sleep(1000);
  if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}); is ${NATS_SERVER} installed?`);
  return `nats://${HOST}:${port}`;
}

/** Three server processes over `databaseUrl` with `env`; resolves once all answer /healthz. */
async function startInstances(databaseUrl: string, env: Record<string, string>): Promise<{ bases: string[]; pids: number[]; stop(): Promise<void> }> {
  const main = path.join(__dirname, '..', 'src', 'main.js');
  const started: ChildProcess[] = [];
  const bases: string[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const child = fork(main, [], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST,
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        EXPOSE_SQL_COUNT: '0',
        SESSION_CREATES_PER_HOUR: '1000000',
        RATE_LIMIT_PER_MINUTE: '1000000',
        WS_CONNECTIONS_PER_TOKEN: '100',
        // Every subscriber connects from 127.0.0.1: the per-IP caps (200 sockets, 1,000 operations) would
        // refuse all but the first of the 2,000, as they would one attacker's.
        WS_CONNECTIONS_PER_IP: '0',
        WS_SUBSCRIPTIONS_PER_IP: '0',
        ...env,
      },
      execArgv: childNodeFlags(`instance-${i}`),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    started.push(child);
    bases.push(`http://${HOST}:${port}`);
  }
  const deadline = Date.now() + 120_000;
  for (const base of bases)
    while (
      !(await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`${base} did not become healthy`);
      await sleep(200);
    }
  return {
    bases,
    pids: started.map((c) => c.pid!),
    async stop() {
      for (const child of started) child.kill('SIGTERM');
      await Promise.all(started.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    },
  };
}

/** BENCH_SUBSCRIBERS subscribers spread over the three instances; SENDS broadcasts through instance 0. */
async function delivery(bases: string[], owner: string, sourceId: string, tokens: string[]): Promise<{ latencies: number[]; delivered: number; note: string }> {
  const receipts: Array<Map<string, number>> = tokens.map(() => new Map());
  const clients = await pool(tokens, 100, async (token, i) => {
    const client = await connect(bases[i % 3]!, token);
    client.subscribe(
      { query: 'subscription { broadcastReceived { broadcast { message } } }' },
      {
        next: (r) => {
          const message = (r.data as { broadcastReceived?: { broadcast: { message: string } } } | null)?.broadcastReceived?.broadcast.message;
          if (message && !receipts[i]!.has(message)) receipts[i]!.set(message, performance.now());
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    return client;
  });
  const count = (m: string) => receipts.reduce((n, r) => n + (r.has(m) ? 1 : 0), 0);
  const waitAll = async (m: string) => {
    const deadline = Date.now() + 60_000;
    while (count(m) < tokens.length && Date.now() < deadline) await sleep(5);
  };
  // Warm-up: every subscription is live before the measured sends (none has a cursor, so wait for all).
  for (let tries = 0; tries < 20 && count(`warm-up ${tries - 1}`) < tokens.length; tries++) {
    await ok(bases[0]!, 'POST', `/api/blueprints/${sourceId}/broadcasts`, owner, { message: `warm-up ${tries}`, type: 'notice', severity: 'info' });
    await sleep(1000);
  }
  const latencies: number[] = [];
  let delivered = tokens.length;
  const sendP99: string[] = [];
  for (let k = 0; k < SENDS; k++) {
    const message = `measured ${k} ${randomBytes(3).toString('hex')}`;
    const t0 = performance.now();
    await ok(bases[0]!, 'POST', `/api/blueprints/${sourceId}/broadcasts`, owner, { message, type: 'changelog', severity: 'info' });
    await waitAll(message);
    const these = receipts.flatMap((r) => (r.has(message) ? [r.get(message)! - t0] : [])).sort((a, b) => a - b);
    delivered = Math.min(delivered, these.length);
    sendP99.push(percentile(these, 99).toFixed(0));
    latencies.push(...these);
    await sleep(300);
  }
  await Promise.all(clients.map((c) => c.dispose()));
  return { latencies: latencies.sort((a, b) => a - b), delivered, note: `p99 of each send ${sendP99.join('/')} ms` };
}

async function main(): Promise<void> {
  const server = process.env.DATABASE_URL;
  if (!server) {
    console.error('bench:scale needs DATABASE_URL (a PostgreSQL server; a fresh bw_bench_<random> database is made on it)');
    process.exit(2);
  }
  const limit = setTimeout(() => {
    console.error(`bench:scale did not finish within ${RUN_LIMIT_MS / 1000} s; stopping`);
    void cleanup().finally(() => process.exit(1));
  }, RUN_LIMIT_MS);
  // Two databases: events on (also the delivery half's) and events off, so both sides can run at once.
  const stem = `bw_bench_${randomBytes(4).toString('hex')}`;
  const dbNames: Record<Side, string> = { on: stem, off: `${stem}_off` };
  const databaseUrls: Record<Side, string> = { on: withDatabase(server, dbNames.on), off: withDatabase(server, dbNames.off) };
  for (const side of ['on', 'off'] as const) cleanups.push(() => adminQuery(server, `drop database if exists ${dbNames[side]} with (force)`));
  const databaseUrl = databaseUrls.on;
  let failed = false;
  try {
    const natsUrl = await startNats();
    console.log(
      `scale bench: node ${process.version}, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, databases ${dbNames.on} and ${dbNames.off}`,
    );
    console.log(
      `forks: ${CONCURRENCY} in flight through instance 0, ${LISTENER_COUNTS.join(' or ')} activity listeners on each of 3 instances per side; both sides at once, the load alternating between them in ${SLICE_MS} ms slices, ${DURATION_MS / 1000} s per side\n`,
    );
    const configs = [
      { key: 'postgres', name: 'LISTEN/NOTIFY', env: (): Record<string, string> => ({}) },
      {
        key: 'nats',
        name: 'NATS JetStream',
        env: (side: Side): Record<string, string> => ({ NATS_URL: natsUrl, NATS_STREAM: `BW_BENCH_${dbNames[side].toUpperCase()}` }),
      },
    ].filter((c) => BACKPLANES.includes(c.key));
    // Migrations and the bench's principals first, on instances of their own, so that every measured run
    // below starts from the same databases.
    const setups = {} as Record<Side, { owner: string; listener: string; sourceId: string }>;
    for (const side of ['on', 'off'] as const) {
      await adminQuery(server, `create database ${dbNames[side]}`);
      const instances = await startInstances(databaseUrls[side], {});
      try {
        const base = instances.bases[0]!;
        const owner = (await ok(base, 'POST', '/api/agent/sessions', undefined, { name: 'scale owner' })).token as string;
        const listener = (await ok(base, 'POST', '/api/agent/sessions', undefined, { name: 'scale listener' })).token as string;
        setups[side] = { owner, listener, sourceId: await createSource(base, owner) };
      } finally {
        await instances.stop();
      }
    }
    const setup = setups.on;
    const forkRows: string[] = [];
    for (const perInstance of LISTENER_COUNTS)
      for (const config of configs) {
        const on = await startInstances(databaseUrls.on, { ...config.env('on'), EVENT_PUBLISHING: 'on' });
        const off = await startInstances(databaseUrls.off, { ...config.env('off'), EVENT_PUBLISHING: 'off' });
        try {
          const side = (instances: typeof on, s: Side): ForkSide => ({ ...instances, ...setups[s], databaseUrl: databaseUrls[s], dbName: dbNames[s] });
          const r = await interleavedForkRates(
            { on: side(on, 'on'), off: side(off, 'off') },
            {
              perInstance,
              concurrency: CONCURRENCY,
              sliceMs: SLICE_MS,
              slicesPerSide: Math.max(2, Math.round(DURATION_MS / SLICE_MS)),
              quietMs: QUIET_MS,
              call,
            },
          );
          for (const s of ['on', 'off'] as const)
            console.log(
              `${config.name}, ${perInstance} per instance, publishing ${s}: ${r[s].perSecond.toFixed(1)} forks/s (${r[s].forks} forks, ${r[s].events} activity events received); ${r[s].work}`,
            );
          console.log(
            `  both sides: PostgreSQL's own processes ${r.sharedPostgresMsPerFork.toFixed(1)} ms, nats-server ${r.natsMsPerFork.toFixed(1)} ms, this bench (the HTTP client and the listeners) ${r.benchMsPerFork.toFixed(1)} ms CPU per fork`,
          );
          failed ||= r.off.events > 0;
          forkRows.push(
            `${config.name.padEnd(15)} | ${String(3 * perInstance).padStart(9)} | ${r.on.perSecond.toFixed(1).padStart(10)} | ${r.off.perSecond.toFixed(1).padStart(11)} | ${describeRatio(r)} | ${r.on.events} activity events received`,
          );
        } finally {
          await Promise.all([on.stop(), off.stop()]);
        }
      }
    console.log('backplane       | listeners | forks/s on | forks/s off | ratio (goal >= 0.8)');
    for (const row of forkRows) console.log(row);

    // Delivery at BENCH_SUBSCRIBERS over three instances.
    const tokens: string[] = [];
    for (const config of DELIVERY ? configs : []) {
      const instances = await startInstances(databaseUrl, config.env('on'));
      try {
        if (tokens.length === 0)
          tokens.push(
            ...(await pool(
              Array.from({ length: SUBSCRIBERS }, (_, i) => i),
              30,
              async (i) => {
                const base = instances.bases[i % 3]!;
                const token = (await ok(base, 'POST', '/api/agent/sessions', undefined, { name: `scale sub ${i}` })).token as string;
                await ok(base, 'POST', `/api/blueprints/${setup.sourceId}/subscription`, token);
                return token;
              },
            )),
          );
        const result = await delivery(instances.bases, setup.owner, setup.sourceId, tokens);
        console.log(
          `\ndelivery over ${config.name}: ${SUBSCRIBERS} subscribers on 3 instances, ${SENDS} sends through instance 0: delivered ${result.delivered}/${SUBSCRIBERS}, p50 ${percentile(result.latencies, 50).toFixed(0)} ms, p99 ${percentile(result.latencies, 99).toFixed(0)} ms, max ${(result.latencies.at(-1) ?? NaN).toFixed(0)} ms (${result.note})`,
        );
        failed ||= result.delivered < SUBSCRIBERS;
      } finally {
        await instances.stop();
      }
    }
    console.log(
      `\nload average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } catch (err) {
    console.error('bench:scale failed:', err);
    failed = true;
  } finally {
    clearTimeout(limit);
    await cleanup();
  }
  process.exit(failed ? 1 : 0);
}

async function cleanup(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) await sleep(100);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const step of cleanups.splice(0).reverse()) await Promise.resolve(step()).catch((err) => console.error('cleanup:', err));
}

process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));
process.on('SIGTERM', () => void cleanup().finally(() => process.exit(143)));
void main();
