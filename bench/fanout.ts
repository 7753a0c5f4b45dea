/**
 * `npm run bench:fanout`: one broadcast to N live graphql-ws subscribers (N = 2,000 and 10,000), and beside
 * it, in the same run, two floors over a bare `ws` WebSocketServer with N plain sockets:
 * - plain ws: the same payload pushed to every socket;
 * - durable ws (the floor the goal is judged against, issue 27): first the durable work a broadcast must
 *   do, one INSERT of N inbox-like rows (a copy of `inbox_delivery`, with its indexes) and its COMMIT
 *   through `pg`, then the same push; timed from before the INSERT.
 *
 * It boots the real server (dist/src/main.js) as a child process on 127.0.0.1 against a fresh database
 * `bw_bench_<random>` of the DATABASE_URL server, gives every subscriber its own agent session subscribed
 * to the source blueprint, and prints delivered/expected, send->receipt latency (p50/p99/max) and the
 * server's memory per subscriber: retained heap + external buffers after a full GC, of the server child
 * before vs. after the sockets subscribed (bench/memory-probe.ts answers over IPC).
 * Per size, all three sides are opened first and stay open; then their BENCH_SENDS (5) measured sends
 * alternate (graphql-ws, durable, plain, then the other way round: bench/fanout-measure.ts, `interleave`),
 * so that a machine whose speed drifts during the run weighs on each side alike. Latency runs from just
 * before the POST (or the IPC send) to each receipt, read off the system's monotonic clock: the graphql-ws
 * clients are in this process, each floor's sockets in a child of their own. Each side first gets two
 * unmeasured sends, around the memory probe (its full GC slows the next one). Beside the latencies: each
 * server process's CPU time per subscriber and send, from before each measured send to its last delivery.
 * Everything runs on 127.0.0.1; the run is bounded and cleans up (children, database) by itself.
 * Exit status 1 when any run delivered less than 100%.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { adminQuery, withDatabase } from '../src/platform/sql/database';
import { freePort, percentile, pool, sleep } from './basics';
import { openFloor } from './fanout-floor';
import {
  DELIVERY_WAIT_MS,
  HOST,
  RUN_LIMIT_MS,
  children,
  clockMs,
  interleave,
  median,
  memoryOf,
  perSubscriber,
  probeArgs,
  usageDuring,
  waitFor,
  type RunResult,
  type Side,
} from './fanout-measure';

/**
 * Subscriber counts to run (BENCH_SIZES=500,2000); BENCH_CPU_PROF=<dir> also writes the children's CPU profiles
 * there, and BENCH_EXTRA_SENDS=<n> sends n more broadcasts after the measured one (not measured), so that
 * such a profile is mostly delivery.
 */
const SIZES = (process.env.BENCH_SIZES ?? '2000,10000').split(',').map(Number);
const SUBSCRIPTION = `subscription Inbox($after: ID) {
  broadcastReceived(after: $after) { id readAt broadcast { id message type severity sourceBlueprint { id slug name } } }
}`;

let dropDatabase: (() => Promise<void>) | null = null;

class Api {
  constructor(readonly base: string) {}
  async call(method: string, url: string, token?: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }
  async ok(method: string, url: string, token?: string, body?: unknown): Promise<any> {
    const res = await this.call(method, url, token, body);
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
  async session(name: string): Promise<string> {
    return (await this.ok('POST', '/api/agent/sessions', undefined, { name })).token;
  }
  /** Drives the five-step `create` tool. */
  async createBlueprint(token: string, name: string): Promise<{ id: string; slug: string; name: string }> {
    let op = await this.ok('POST', '/api/tools/operations', token, { tool_type: 'create', params: {} });
    const submissions = [
      { modules: [{ key: 'api', name: 'API', kind: 'backend', summary: 'HTTP API', depends_on: [] }] },
      { steps: [{ key: 'endpoints', module_key: 'api', title: 'Endpoints', instructions: 'Build them', acceptance: ['tests pass'] }] },
      { configuration: { runtime: 'node' } },
      { design_system: {} },
      { name, description: 'fan-out benchmark source', tags: ['bench'], visibility: 'public' },
    ];
    for (const submission of submissions) op = await this.ok('POST', `/api/tools/operations/${op.operation_id}/submit`, token, { token: op.token, submission });
    return this.ok('GET', `/api/blueprints/${op.result.blueprint_ids[0]}`, token);
  }
}

/**
 * Opens the graphql-ws side of a size: a source blueprint, `n` subscribers each with its own agent session
 * and socket, one warm-up send (every subscription live) and one after the memory probe, neither measured.
 * Answers the side and one `next` message as graphql-ws put it on the wire (the floors send the same).
 */
async function openGraphql(api: Api, wsUrl: string, app: ChildProcess, owner: string, n: number): Promise<{ side: Side; sample: unknown }> {
  const source = await api.createBlueprint(owner, `Fan-out source ${n}`);
  const tokens = await pool(
    Array.from({ length: n }, (_, i) => i),
    50,
    async (i) => {
      const token = await api.session(`subscriber-${n}-${i}`);
      await api.ok('POST', `/api/blueprints/${source.id}/subscription`, token);
      return token;
    },
  );
  const before = await memoryOf(app);

  const receipts: Array<Map<string, number>> = tokens.map(() => new Map());
  /** Subscribers that received each message, counted as they arrive (waitFor polls this every 5 ms). */
  const received = new Map<string, number>();
  let sample: unknown = null;
  const clients: Client[] = [];
  let failures = 0;
  await pool(tokens, 100, async (token, i) => {
    const client = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      // Reconnect as a real client does: on a busy machine a few connection inits time out (4408), and a
      // subscriber that never connected would hold the run until RUN_LIMIT_MS.
      retryAttempts: 5,
      lazy: false,
    });
    clients.push(client);
    await new Promise<void>((resolve) => {
      const off = client.on('connected', () => {
        off();
        resolve();
      });
    });
    // after: "0" replays anything committed before the subscription took hold, so no delivery is lost to timing.
    client.subscribe(
      { query: SUBSCRIPTION, variables: { after: '0' } },
      {
        next: (r) => {
          const item = (r.data as { broadcastReceived: { broadcast: { message: string } } } | null)?.broadcastReceived;
          if (!item) {
            failures += 1;
            return;
          }
          const message = item.broadcast.message;
          if (receipts[i]!.has(message)) return;
          receipts[i]!.set(message, clockMs());
          received.set(message, (received.get(message) ?? 0) + 1);
          sample ??= r;
        },
        error: () => (failures += 1),
        complete: () => undefined,
      },
    );
  });
  const count = (message: string) => received.get(message) ?? 0;

  // Warm-up: proves every subscription is live (and warms the code paths) before the measured sends.
  await api.ok('POST', `/api/blueprints/${source.id}/broadcasts`, owner, { message: 'warm-up', type: 'notice', severity: 'info' });
  await waitFor(() => count('warm-up'), n, DELIVERY_WAIT_MS);
  const after = await memoryOf(app);
  // The probe's full GC made the next send the slowest of every run, on both sides (1.5-2x the others'
  // p99): one more send, not measured, as the floors get one too.
  await api.ok('POST', `/api/blueprints/${source.id}/broadcasts`, owner, { message: 'after the probe', type: 'notice', severity: 'info' });
  await waitFor(() => count('after the probe'), n, DELIVERY_WAIT_MS);

  const sendMs: number[] = [];
  let sent: { status: number; body: { recipient_count?: number } } | undefined;
  const side: Side = {
    n,
    transport: 'graphql-ws',
    memory: perSubscriber(before, after, n),
    async send(k) {
      const message = `measured ${k}`;
      const {
        result: t0,
        cpu,
        writes,
      } = await usageDuring(app, async () => {
        const start = clockMs();
        sent = await api.call('POST', `/api/blueprints/${source.id}/broadcasts`, owner, { message, type: 'changelog', severity: 'breaking' });
        sendMs.push(clockMs() - start);
        await waitFor(() => count(message), n, DELIVERY_WAIT_MS);
        return start;
      });
      return { latencies: receipts.flatMap((r) => (r.has(message) ? [r.get(message)! - t0] : [])).sort((a, b) => a - b), cpu, writes };
    },
    note: () =>
      `POST ${sent?.status} in ${sendMs.map((m) => m.toFixed(0)).join('/')} ms, recipient_count ${sent?.body.recipient_count}, warm-up ${count('warm-up')}/${n}${failures ? `, ${failures} errors` : ''}`,
    async close() {
      for (let k = 0; k < Number(process.env.BENCH_EXTRA_SENDS ?? 0); k++) {
        await api.call('POST', `/api/blueprints/${source.id}/broadcasts`, owner, { message: `extra ${k}`, type: 'changelog', severity: 'breaking' });
        await waitFor(() => count(`extra ${k}`), n, DELIVERY_WAIT_MS);
      }
      await Promise.all(clients.map((c) => c.dispose()));
    },
  };
  return { side, sample };
}

function printResults(results: RunResult[]): void {
  const rows = results.map((r) => [
    String(r.n),
    r.transport,
    `${r.delivered}/${r.n}${r.delivered === r.n ? ' (100%)' : ` (${((100 * r.delivered) / r.n).toFixed(1)}%)`}`,
    percentile(r.latencies, 50).toFixed(1),
    percentile(r.latencies, 99).toFixed(1),
    (r.latencies.at(-1) ?? NaN).toFixed(1),
    `${(r.memory / 1024).toFixed(1)} KiB`,
  ]);
  const header = ['subscribers', 'transport', 'delivered', 'p50 ms', 'p99 ms', 'max ms', 'server memory/subscriber'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(line(r));
  console.log('');
  for (const r of results)
    console.log(
      `${String(r.n).padStart(5)} ${r.transport.padEnd(10)} ${r.note}; server CPU ${r.serverCpu.toFixed(1)} µs (system ${r.serverSystemCpu.toFixed(1)}) and ${r.serverWrites.toFixed(2)} write calls per subscriber and send; p99 of each send ${r.sendP99s.map((v) => v.toFixed(0)).join('/')} ms`,
    );
  console.log('');
  for (const n of new Set(results.map((r) => r.n))) {
    const ours = results.find((r) => r.n === n && r.transport === 'graphql-ws');
    const plain = results.find((r) => r.n === n && r.transport === 'plain ws');
    const durable = results.find((r) => r.n === n && r.transport === 'durable ws');
    if (!ours || !plain || !durable) continue;
    const p99 = (r: RunResult) => percentile(r.latencies, 99);
    // The pooled p99 is close to the slowest send's, so one slow floor send moves the ratio by 1.5x; the
    // median send's p99 is what a typical event does.
    const typical = (floor: RunResult) => median(ours.sendP99s) / median(floor.sendP99s);
    console.log(
      `${n} subscribers: p99 graphql-ws/durable floor = ${(p99(ours) / p99(durable)).toFixed(2)}x pooled, ${typical(durable).toFixed(2)}x between the median sends' p99s (goal <= 1.5); ` +
        `graphql-ws/plain ws = ${(p99(ours) / p99(plain)).toFixed(2)}x pooled, ${typical(plain).toFixed(2)}x median; ` +
        `memory ${(ours.memory / 1024).toFixed(1)} KiB per subscriber (goal <= 10 at 10,000)`,
    );
  }
}

async function cleanup(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  // The server drains its connections on SIGTERM; give it a few seconds before insisting.
  await waitFor(() => children.filter((c) => c.exitCode !== null || c.signalCode !== null).length, children.length, 5000);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await dropDatabase?.().catch((err) => console.error('could not drop the bench database:', err));
  dropDatabase = null;
}

async function main(): Promise<void> {
  const server = process.env.DATABASE_URL;
  if (!server) {
    console.error('bench:fanout needs DATABASE_URL (a PostgreSQL server; a fresh bw_bench_<random> database is made on it)');
    process.exit(2);
  }
  const limit = setTimeout(() => {
    console.error(`bench:fanout did not finish within ${RUN_LIMIT_MS / 1000} s; stopping`);
    void cleanup().finally(() => process.exit(1));
  }, RUN_LIMIT_MS);

  const dbName = `bw_bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = withDatabase(server, dbName);
  dropDatabase = () => adminQuery(server, `drop database if exists ${dbName} with (force)`);
  const port = await freePort();
  const main = path.join(__dirname, '..', 'src', 'main.js');
  const app = fork(main, [], {
    execArgv: probeArgs,
    env: {
      ...process.env,
      NODE_ENV: 'production', // as deployed (graphql-js skips its development-time checks)
      PORT: String(port),
      HOST,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      // As deployed: no per-request SQL counting scope (an AsyncLocalStorage).
      EXPOSE_SQL_COUNT: '0',
      // Every subscriber is its own agent session, all from 127.0.0.1.
      SESSION_CREATES_PER_HOUR: '1000000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // ... so the per-IP caps on sockets and operations (docs/limits.md) are lifted (0: no cap).
      WS_CONNECTIONS_PER_IP: '0',
      WS_SUBSCRIPTIONS_PER_IP: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(app);
  const api = new Api(`http://${HOST}:${port}`);
  let ok = false;
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const healthy = await fetch(`${api.base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) break;
      if (Date.now() > deadline || app.exitCode !== null) throw new Error('the server did not become healthy');
      await sleep(200);
    }
    console.log(
      `fan-out bench: node ${process.version}, server pid ${app.pid} on ${HOST}:${port}, database ${dbName}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const owner = await api.session('bench owner');
    const results: RunResult[] = [];
    for (const n of SIZES) {
      const { side: ours, sample } = await openGraphql(api, `ws://${HOST}:${port}/graphql`, app, owner, n);
      // The bare servers send exactly what graphql-ws put on the wire for one subscriber.
      const payload = JSON.stringify({ id: randomBytes(16).toString('hex'), type: 'next', payload: sample });
      const sides = [ours, await openFloor(n, payload, 'durable ws', databaseUrl), await openFloor(n, payload, 'plain ws', databaseUrl)];
      const measured = await interleave(sides);
      for (const side of sides) await side.close();
      results.push(...measured);
      // Each size as it ends, so a run stopped later (RUN_LIMIT_MS) still shows what it measured.
      for (const r of measured)
        console.log(
          `${n} ${r.transport}: ${r.delivered}/${n} delivered, p50/p99 ${percentile(r.latencies, 50).toFixed(1)}/${percentile(r.latencies, 99).toFixed(1)} ms, ${(r.memory / 1024).toFixed(1)} KiB each`,
        );
    }
    console.log('');
    printResults(results);
    ok = results.every((r) => r.delivered === r.n);
    if (!ok) console.error('\nFAILED: not every subscriber received the broadcast');
  } catch (err) {
    console.error('bench:fanout failed:', err);
  } finally {
    clearTimeout(limit);
    await cleanup();
  }
  process.exit(ok ? 0 : 1);
}

void main();
