/**
 * `npm run bench:abuse`: the attacks of issue 24 findings 1 and 2, at the sizes, against the real
 * server (dist/src/main.js, NODE_ENV=production, default limits) in a child process on 127.0.0.1, over a
 * fresh database `bw_bench_<random>` of the DATABASE_URL server. While each attack runs, a probe sends
 * `GET /healthz` one after another from its own thread and the largest answer time is printed (goal < 100 ms), with the
 * server's resident memory (rss, from /proc) before and after, and what the attack got back.
 *
 * Finding 1: a plan at the size limit (500 modules, 5,000 steps), forked 100 times; ten requests at once
 * of REST forks?limit=100, MCP blueprint_forks, GraphQL three aliased forks(first: 100) { steps }, GraphQL
 * lineage nodes { steps }, and the largest list the budget still answers (forks(first: 2) { steps }).
 * Finding 2: one IP opening 1,500 anonymous sockets with 100 architectureChanged subscriptions each, then
 * a layout write; one person with 40 tokens opening 500 sockets of 40 subscriptions (20,000), then a
 * write to their own public architecture.
 *
 * The last row's write is made by a third account (the architecture's owner), not by the person holding
 * the sockets: their subscriptions spend their own rate limit, and a write refused 429 fans out nothing.
 *
 * `BENCH_ONLY=rest-forks,anonymous-sockets` runs only the named rows (baseline, rest-forks, mcp-forks,
 * graphql-forks, graphql-lineage, graphql-in-budget, anonymous-sockets, person-sockets), one attack at a
 * time on a busy machine; the 100 forks are made only when a row of finding 1 runs. `BENCH_FORKS` sets
 * their number (default 100).
 *
 * Bounded: every wait has a deadline, the whole run stops after BENCH_LIMIT_MS (default 10 min), and
 * the children and the database are removed however it ends. Only 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { machineLine, run, serverProcess, sleep, withBenchDatabase, type ServerProcess } from './harness';

const LIMIT_MS = Number(process.env.BENCH_LIMIT_MS ?? 10 * 60_000);
const FORKS = Number(process.env.BENCH_FORKS ?? 100);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const finding1Rows = ['rest-forks', 'mcp-forks', 'graphql-forks', 'graphql-lineage', 'graphql-in-budget'];
/** Whether the row `key` runs (every row unless BENCH_ONLY names others). */
const selected = (key: string) => ONLY === null || ONLY.has(key);
const CONCURRENT = 10;
/** How many times the GraphQL forks row runs (`BENCH_REPEAT`): the first burst also pays the cold start of a fresh process. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);

let base = '';

async function call(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, text, json };
}

async function ok(method: string, path: string, token?: string, body?: unknown): Promise<any> {
  const res = await call(method, path, token, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

/** The server's resident memory in MB (Linux /proc). */
function rssMb(server: ServerProcess): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

/** CPU time (user + system) the server process has used, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(server: ServerProcess): number {
  const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The probe's loop, run in its own thread: on the attacker's event loop (which parses thousands of the
 * attack's own messages) its timings measured the bench client as much as the server.
 */
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let running = true, max = 0, count = 0;
parentPort.on('message', () => (running = false));
const probe = () => fetch(workerData.url, { signal: AbortSignal.timeout(60000) }).then((r) => r.text());
(async () => {
  // Warm first (the thread's first fetches compile undici and open its connection): not counted.
  for (let i = 0; i < 20; i++) await probe();
  parentPort.postMessage({ ready: true });
  while (running) {
    const started = performance.now();
    try {
      await probe();
    } catch {
      // a timeout counts as its duration
    }
    max = Math.max(max, performance.now() - started);
    count += 1;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage({ max, count });
})();
`;

/**
 * `GET /healthz` one after another, from a worker thread, until stopped; the largest answer time in ms.
 * `ready` resolves once the thread has warmed up and is probing.
 */
function healthzProbe(): { ready: Promise<void>; stop(): Promise<{ max: number; count: number }> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url: `${base}/healthz` } });
  const messages: Array<(m: { ready?: boolean; max?: number; count?: number }) => void> = [];
  worker.on('message', (m) => messages.shift()?.(m));
  const next = () =>
    new Promise<{ ready?: boolean; max?: number; count?: number }>((resolve, reject) => {
      messages.push(resolve);
      worker.once('error', reject);
    });
  const ready = next().then(() => undefined);
  return {
    ready,
    async stop() {
      const done = next();
      worker.postMessage('stop');
      const { max = 0, count = 0 } = await done;
      await worker.terminate();
      return { max: Math.round(max), count };
    },
  };
}

/** Runs `attack` while the probe runs; prints one line. */
async function measured(server: ServerProcess, name: string, attack: () => Promise<string>): Promise<void> {
  const before = rssMb(server);
  const cpuBefore = cpuMs(server);
  const probe = healthzProbe();
  await probe.ready;
  const started = performance.now();
  let outcome: string;
  try {
    outcome = await attack();
  } catch (err) {
    outcome = `failed: ${(err as Error).message.slice(0, 200)}`;
  }
  const took = Math.round(performance.now() - started);
  const { max, count } = await probe.stop();
  const cpu = cpuMs(server) - cpuBefore;
  console.log(`| ${name} | ${max} ms (${count} probes) | ${before} -> ${rssMb(server)} MB | ${took} ms | ${cpu} ms | ${outcome} |`);
}

function planAtTheLimit() {
  const modules = Array.from({ length: 500 }, (_, i) => ({ key: `m${i}`, name: `Module ${i}`, kind: 'service', summary: '', depends_on: [] }));
  const steps = Array.from({ length: 5000 }, (_, i) => ({
    key: `s${i}`,
    module_key: `m${i % 500}`,
    title: `Step ${i}`,
    instructions: `Do the part ${i} of the work carefully and check it twice. `.padEnd(85, '.'),
    acceptance: ['it works'],
  }));
  return [
    { modules },
    { steps },
    { configuration: { runtime: 'node' } },
    { design_system: { colors: { primary: '#3355ff' } } },
    { name: 'At the limit', description: 'bench', tags: [], visibility: 'public' },
  ];
}

async function createAtTheLimit(token: string): Promise<string> {
  let current = await ok('POST', '/api/tools/operations', token, { tool_type: 'create', params: {} });
  for (const submission of planAtTheLimit())
    current = await ok('POST', `/api/tools/operations/${current.operation_id}/submit`, token, { token: current.token, submission });
  return current.result.blueprint_ids[0];
}

const sizeOf = (texts: string[]) => `${(texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6).toFixed(2)} MB in all`;

/** Ten requests at once; their statuses and total size. */
async function tenAtOnce(send: () => Promise<{ status: number; text: string }>): Promise<string> {
  const answers = await Promise.all(Array.from({ length: CONCURRENT }, send));
  const statuses = [...new Set(answers.map((a) => a.status))].join('/');
  return `${CONCURRENT} x status ${statuses}, ${sizeOf(answers.map((a) => a.text))}`;
}

const gql = (token: string, query: string, variables: Record<string, unknown>) => call('POST', '/graphql', token, { query, variables });

// --- finding 2 ----------------------------------------------------------------------------------------

interface Opened {
  sockets: WebSocket[];
  refusedSockets: number;
  subscriptions: number;
  refusedSubscriptions: number;
  received: () => number;
}

/**
 * Opens `sockets` sockets (with `token` or anonymous), each asking for `perSocket` architectureChanged
 * subscriptions; counts what the server accepted (an operation is refused with an `error` message).
 */
async function openSubscribers(slug: string, sockets: number, perSocket: number, tokens: Array<string | undefined>): Promise<Opened> {
  const opened: Opened = { sockets: [], refusedSockets: 0, subscriptions: 0, refusedSubscriptions: 0, received: () => 0 };
  let received = 0;
  opened.received = () => received;
  const url = base.replace(/^http/, 'ws') + '/graphql';
  const one = (token: string | undefined) =>
    new Promise<void>((resolve) => {
      const socket = new WebSocket(url, 'graphql-transport-ws');
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 20_000);
      let acked = false;
      socket.on('error', () => undefined);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: token ? { authorization: `Bearer ${token}` } : {} })));
      socket.on('close', () => {
        if (!acked) opened.refusedSockets += 1;
        clearTimeout(timer);
        resolve();
      });
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string };
        if (m.type === 'connection_ack') {
          acked = true;
          opened.sockets.push(socket);
          opened.subscriptions += perSocket;
          for (let i = 0; i < perSocket; i++)
            socket.send(
              JSON.stringify({
                id: String(i),
                type: 'subscribe',
                payload: { query: 'subscription($s: String!) { architectureChanged(slug: $s) { kind } }', variables: { s: slug } },
              }),
            );
          // Refusals come at once; give them a moment, then count this socket as settled.
          setTimeout(() => {
            clearTimeout(timer);
            resolve();
          }, 1000);
        } else if (m.type === 'error') {
          opened.refusedSubscriptions += 1;
          opened.subscriptions -= 1;
        } else if (m.type === 'next') received += 1;
      });
    });
  const batch = 100;
  for (let i = 0; i < sockets; i += batch)
    await Promise.all(Array.from({ length: Math.min(batch, sockets - i) }, (_, k) => one(tokens[(i + k) % tokens.length])));
  return opened;
}

async function architectureWithNode(token: string, blueprintId: string): Promise<{ slug: string; nodeId: string }> {
  const arch = await ok('POST', '/api/architectures', token, { name: `Abuse ${Math.random().toString(36).slice(2, 8)}`, visibility: 'public' });
  const node = await ok('POST', `/api/architectures/${arch.slug}/nodes`, token, { blueprint_id: blueprintId, position_x: 0, position_y: 0 });
  return { slug: arch.slug, nodeId: node.id };
}

/** A layout write, then waits (at most 60 s) until `expected` deliveries arrived. */
async function writeAndFanOut(token: string, arch: { slug: string; nodeId: string }, subscribers: Opened): Promise<string> {
  const before = subscribers.received();
  await ok('PUT', `/api/architectures/${arch.slug}/layout`, token, [{ nodeId: arch.nodeId, position: { x: Math.random() * 100, y: 1 } }]);
  const deadline = Date.now() + 60_000;
  while (subscribers.received() - before < subscribers.subscriptions && Date.now() < deadline) await sleep(50);
  return `${subscribers.received() - before} of ${subscribers.subscriptions} delivered`;
}

function closeAll(o: Opened): void {
  for (const s of o.sockets) s.terminate();
}

async function main(): Promise<void> {
  // Past the limit the run stops the way Ctrl-C does: the server stopped, the database dropped.
  const watchdog = setTimeout(() => {
    console.error(`stopped after ${LIMIT_MS} ms`);
    process.kill(process.pid, 'SIGTERM');
  }, LIMIT_MS);
  await withBenchDatabase(async ({ databaseUrl }, stopBeforeDrop) => {
    // Default limits (the rate limit too), except agent sessions per IP: the bench makes many.
    const server = await serverProcess(databaseUrl, { RATE_LIMIT_PER_MINUTE: '600', SESSION_CREATES_PER_HOUR: '1000' });
    stopBeforeDrop(server.stop);
    base = server.url;
    console.log('# bench:abuse (issue 24 findings 1 and 2)');
    console.log(machineLine());
    console.log('');
    const owner = (await ok('POST', '/api/agent/sessions', undefined, { name: 'attacker' })).token as string;
    const id = await createAtTheLimit(owner);
    const forks = finding1Rows.some(selected) ? FORKS : 0;
    for (let i = 0; i < forks; i++) await ok('POST', `/api/blueprints/${id}/fork`, owner);
    console.log(`One plan at the size limit (500 modules, 5,000 steps) and ${forks} forks; ${CONCURRENT} requests at once per row.`);
    console.log('');
    // Server CPU: what the attack cost the server (probes included), which a busy machine distorts less than wall time.
    console.log('| attack | largest /healthz answer | server rss before -> after | attack took | server CPU | what it got |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    // What the probe sees with no attack at all: on a shared machine, the floor the rows below compare with.
    await measured(server, 'no attack (baseline, 3 s)', async () => {
      await sleep(3000);
      return '-';
    });
    if (selected('rest-forks'))
      await measured(server, 'REST GET /forks?limit=100', () => tenAtOnce(() => call('GET', `/api/blueprints/${id}/forks?limit=100`, owner)));
    if (selected('mcp-forks'))
      await measured(server, 'MCP blueprint_forks limit 100', () =>
        tenAtOnce(async () => {
          const res = await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'blueprint_forks', arguments: { blueprint_id: id, limit: 100 } },
            }),
          });
          return { status: res.status, text: await res.text() };
        }),
      );
    const aliases = `query($id: ID!) { blueprint(id: $id) { a: forks(first: 100) { edges { node { steps { key title instructions } } } } b: forks(first: 100) { edges { node { steps { key title instructions } } } } c: forks(first: 100) { edges { node { steps { key title instructions } } } } } }`;
    if (selected('graphql-forks'))
      for (let round = 0; round < REPEAT; round++)
        await measured(server, `GraphQL 3 x forks(first: 100) { steps }${round ? ' (again)' : ''}`, () => tenAtOnce(() => gql(owner, aliases, { id })));
    if (selected('graphql-lineage'))
      await measured(server, 'GraphQL lineage(depth: 50) { nodes { steps } }', () =>
        tenAtOnce(() =>
          gql(owner, `query($id: ID!) { blueprint(id: $id) { lineage(direction: DOWN, depth: 50) { nodes { steps { key title instructions } } } } }`, { id }),
        ),
      );
    if (selected('graphql-in-budget'))
      await measured(server, 'GraphQL forks(first: 2) { steps } (within the budget)', () =>
        tenAtOnce(() =>
          gql(owner, `query($id: ID!) { blueprint(id: $id) { forks(first: 2) { edges { node { steps { key title instructions } } } } } }`, { id }),
        ),
      );

    console.log('');
    const archOwner = (await ok('POST', '/api/agent/sessions', undefined, { name: 'architect' })).token as string;
    const small = await ok('POST', `/api/blueprints/${id}/fork`, archOwner);
    const arch = await architectureWithNode(archOwner, small.id);
    if (selected('anonymous-sockets')) {
      let anonymous: Opened | undefined;
      await measured(server, 'open 1,500 anonymous sockets x 100 architectureChanged', async () => {
        anonymous = await openSubscribers(arch.slug, 1500, 100, [undefined]);
        return `${anonymous.sockets.length} sockets accepted, ${anonymous.refusedSockets} refused; ${anonymous.subscriptions} subscriptions running, ${anonymous.refusedSubscriptions} refused`;
      });
      await measured(server, '... then one layout write', () => writeAndFanOut(archOwner, arch, anonymous!));
      closeAll(anonymous!);
      await sleep(1000);
    }
    if (!selected('person-sockets')) return;

    const person = await ok('POST', '/api/auth/signup', undefined, { username: `abuser${Date.now()}`, password: 'correct horse battery' });
    const tokens: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await call('POST', '/api/account/tokens', person.token, { name: `t${i}`, scope: 'write' });
      if (res.status === 201) tokens.push(res.json.token);
    }
    // The architecture (public) belongs to another person, who writes to it: the subscriber's own
    // operations spend the subscriber's rate limit, and the write must not be refused by it.
    const writer = await ok('POST', '/api/auth/signup', undefined, { username: `writer${Date.now()}`, password: 'correct horse battery' });
    const ownArch = await architectureWithNode(writer.token, small.id);
    let personal: Opened | undefined;
    await measured(server, `one person, ${tokens.length} tokens: 500 sockets x 40 subscriptions`, async () => {
      personal = await openSubscribers(ownArch.slug, 500, 40, tokens.length ? tokens : [person.token]);
      return `${personal.sockets.length} sockets accepted, ${personal.refusedSockets} refused; ${personal.subscriptions} subscriptions running, ${personal.refusedSubscriptions} refused`;
    });
    await measured(server, '... then one write by another account', () => writeAndFanOut(writer.token, ownArch, personal!));
    closeAll(personal!);
  }).finally(() => clearTimeout(watchdog));
}

run(main);
