/**
 * bench/fanout.ts's two floors: a bare `ws` WebSocketServer in a child process (this file, run with
 * `--bare-ws-server`) with N plain sockets, pushing one payload to every socket (plain ws), or first
 * inserting N inbox-like rows and committing through `pg`, as a broadcast must (durable ws).
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client as PgClient } from 'pg';
import WebSocket, { WebSocketServer } from 'ws';
import { pool, sleep } from './basics';
import {
  DELIVERY_WAIT_MS,
  HOST,
  SENDS,
  SETTLE_MS,
  SendStats,
  children,
  cpuOf,
  memoryOf,
  perSubscriber,
  probeArgs,
  waitFor,
  type RunResult,
} from './fanout-measure';

/** The bare server's two modes: push only, or the durable INSERT + COMMIT of N rows first. */
export type Floor = 'plain ws' | 'durable ws';

export async function bareRun(n: number, payload: string, floor: Floor, databaseUrl: string): Promise<RunResult> {
  const child = fork(__filename, ['--bare-ws-server', floor === 'durable ws' ? '--durable' : '--plain'], {
    execArgv: probeArgs,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const messages: Array<{ type: string; port?: number; count?: number }> = [];
  child.on('message', (m: { type: string }) => messages.push(m));
  const waitMessage = async (type: string) => {
    // Generous: on a busy shared machine a fresh child took over 10 s to start listening.
    await waitFor(() => (messages.some((m) => m.type === type) ? 1 : 0), 1, 60_000);
    const i = messages.findIndex((m) => m.type === type);
    if (i < 0) throw new Error(`bare ws server: no ${type}`);
    return messages.splice(i, 1)[0]!;
  };
  const { port } = await waitMessage('ready');
  const before = await memoryOf(child);
  let receipts = new Array<number | null>(n).fill(null);
  let received = 0;
  let phase = 'warm-up';
  const sockets: WebSocket[] = [];
  await pool(
    Array.from({ length: n }, (_, i) => i),
    100,
    async (i) => {
      const socket = new WebSocket(`ws://${HOST}:${port}`);
      sockets.push(socket);
      socket.on('message', (data) => {
        JSON.parse(String(data)); // parse like the graphql-ws client does
        if (phase === 'measured' && receipts[i] === null) {
          receipts[i] = performance.now();
          received += 1;
        }
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    },
  );
  child.send({ type: 'send', payload });
  await waitMessage('sent');
  await sleep(200);
  const after = await memoryOf(child);
  // As for graphql-ws: one send after the probe's full GC, not measured.
  child.send({ type: 'send', payload });
  await waitMessage('sent');
  await sleep(SETTLE_MS);
  const stats = new SendStats(n);
  const cpuBefore = await cpuOf(child);
  for (let k = 0; k < SENDS; k++) {
    receipts = new Array<number | null>(n).fill(null);
    received = 0;
    phase = 'measured';
    const t0 = performance.now();
    child.send({ type: 'send', payload });
    await waitFor(() => received, n, DELIVERY_WAIT_MS);
    phase = 'between';
    await waitMessage('sent');
    stats.add(receipts.flatMap((r) => (r === null ? [] : [r - t0])).sort((a, b) => a - b));
    await sleep(SETTLE_MS);
  }
  const serverCpu = ((await cpuOf(child)) - cpuBefore) / SENDS / n;
  for (const s of sockets) s.terminate();
  child.send({ type: 'stop' });
  return {
    n,
    transport: floor,
    ...stats.result(),
    memory: perSubscriber(before, after, n),
    serverCpu,
    note:
      floor === 'durable ws'
        ? `${SENDS} sends: INSERT of ${n} inbox rows + COMMIT through pg, then the same ${payload.length}-byte message by a loop over wss.clients`
        : `${SENDS} sends of the same ${payload.length}-byte message, each by a loop over wss.clients`,
  };
}

// Child mode: a bare WebSocketServer that sends whatever the parent asks to every socket; with --durable,
// each send first inserts one inbox-like row per socket and commits, through `pg`, as a broadcast must.
function bareWsServer(durable: boolean): void {
  const wss = new WebSocketServer({ host: HOST, port: 0 });
  const db = durable ? new PgClient({ connectionString: process.env.DATABASE_URL }) : null;
  const ready = (async () => {
    if (!db) return;
    await db.connect();
    // inbox_delivery's columns, keys and indexes, in a table of its own so the server's inboxes stay as they are.
    await db.query('create table if not exists bench_floor_inbox (like inbox_delivery including all)');
  })();
  wss.on('listening', () => {
    const address = wss.address();
    void ready.then(() => process.send!({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 }));
  });
  process.on('message', (msg: { type: string; payload?: string }) => {
    if (msg.type === 'send')
      void (async () => {
        if (db) {
          await db.query('begin');
          await db.query('insert into bench_floor_inbox (broadcast_id, recipient_id) select $1, gen_random_uuid() from generate_series(1, $2::int)', [
            randomUUID(),
            wss.clients.size,
          ]);
          await db.query('commit');
        }
        for (const socket of wss.clients) socket.send(msg.payload!);
        process.send!({ type: 'sent' });
      })();
    else if (msg.type === 'count') process.send!({ type: 'count', count: wss.clients.size });
    else if (msg.type === 'stop') wss.close(() => void (db ? db.end() : Promise.resolve()).finally(() => process.exit(0)));
  });
}

if (process.argv.includes('--bare-ws-server')) bareWsServer(process.argv.includes('--durable'));
