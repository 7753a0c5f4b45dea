/**
 * bench/fanout.ts's two floors: a bare `ws` WebSocketServer in a child process (this file, run with
 * `--bare-ws-server`) with N plain sockets, pushing one payload to every socket (plain ws), or first
 * inserting N inbox-like rows and committing through `pg`, as a broadcast must (durable ws).
 *
 * A floor's N client sockets live in a child of their own (`--floor-clients`): every side of a size stays
 * open at once, so that their sends can alternate (bench/fanout-measure.ts, `interleave`), and one process
 * may not hold the graphql-ws side's sockets and a floor's (the open-file limit here is 20,000). Receipts
 * are read off `clockMs` (the system's monotonic clock), which is the same clock in every process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import WebSocket, { WebSocketServer } from 'ws';
import { pool } from './basics';
import { DELIVERY_WAIT_MS, HOST, children, clockMs, memoryOf, perSubscriber, probeArgs, usageDuring, waitFor, type Side } from './fanout-measure';

/** The bare server's two modes: push only, or the durable INSERT + COMMIT of N rows first. */
export type Floor = 'plain ws' | 'durable ws';

/** Messages of one child, taken by type as they come (each once). */
class Inbox {
  private readonly messages: Array<{ type: string } & Record<string, unknown>> = [];

  constructor(
    private readonly child: ChildProcess,
    private readonly name: string,
  ) {
    child.on('message', (m: { type: string }) => this.messages.push(m));
  }

  async take<T>(type: string): Promise<T> {
    // Generous: on a busy shared machine a fresh child took over 10 s to start listening.
    await waitFor(() => (this.messages.some((m) => m.type === type) ? 1 : 0), 1, 60_000);
    const i = this.messages.findIndex((m) => m.type === type);
    if (i < 0) throw new Error(`${this.name}: no ${type}`);
    return this.messages.splice(i, 1)[0] as T;
  }
}

function child(args: string[], env: Record<string, string>, execArgv: string[]): ChildProcess {
  const forked = fork(__filename, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(forked);
  return forked;
}

/** Opens a floor of `n` sockets: its server, its clients, two unmeasured sends around the memory probe. */
export async function openFloor(n: number, payload: string, floor: Floor, databaseUrl: string): Promise<Side> {
  const server = child(['--bare-ws-server', floor === 'durable ws' ? '--durable' : '--plain'], { DATABASE_URL: databaseUrl }, probeArgs);
  const fromServer = new Inbox(server, 'bare ws server');
  const { port } = await fromServer.take<{ port: number }>('ready');
  const before = await memoryOf(server);
  const clients = child(['--floor-clients', `ws://${HOST}:${port}`, String(n)], {}, []);
  const fromClients = new Inbox(clients, 'floor clients');
  await fromClients.take('open');
  /** One send from the server; resolves with every socket's receipt time (`clockMs`), null where none came. */
  const push = async (): Promise<{ t0: number; receipts: Array<number | null> }> => {
    clients.send({ type: 'arm' });
    await fromClients.take('armed');
    const t0 = clockMs();
    server.send({ type: 'send', payload });
    await fromServer.take('sent');
    clients.send({ type: 'collect' });
    const { receipts } = await fromClients.take<{ receipts: Array<number | null> }>('receipts');
    return { t0, receipts };
  };
  await push();
  const memory = perSubscriber(before, await memoryOf(server), n);
  // As for graphql-ws: one send after the probe's full GC, not measured.
  await push();
  return {
    n,
    transport: floor,
    memory,
    async send() {
      const {
        result: { t0, receipts },
        cpu,
        writes,
      } = await usageDuring(server, push);
      return { latencies: receipts.flatMap((r) => (r === null ? [] : [r - t0])).sort((a, b) => a - b), cpu, writes };
    },
    note: () =>
      floor === 'durable ws'
        ? `INSERT of ${n} inbox rows + COMMIT through pg, then the same ${payload.length}-byte message by a loop over wss.clients`
        : `the same ${payload.length}-byte message, each by a loop over wss.clients`,
    async close() {
      clients.send({ type: 'stop' });
      server.send({ type: 'stop' });
      await waitFor(() => [clients, server].filter((c) => c.exitCode !== null).length, 2, 10_000);
    },
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
    else if (msg.type === 'stop') wss.close(() => void (db ? db.end() : Promise.resolve()).finally(() => process.exit(0)));
  });
}

// Child mode: N plain sockets to a bare server. After `arm`, each socket's next message is parsed (as the
// graphql-ws client parses its frames) and its receipt time kept; `collect` answers them once all came
// (or DELIVERY_WAIT_MS passed).
async function floorClients(url: string, n: number): Promise<void> {
  let receipts: Array<number | null> = [];
  let received = 0;
  let armed = false;
  const sockets: WebSocket[] = [];
  await pool(
    Array.from({ length: n }, (_, i) => i),
    100,
    async (i) => {
      const socket = new WebSocket(url);
      sockets.push(socket);
      socket.on('message', (data) => {
        JSON.parse(String(data));
        if (armed && receipts[i] === null) {
          receipts[i] = clockMs();
          received += 1;
        }
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    },
  );
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'arm') {
      receipts = new Array<number | null>(n).fill(null);
      received = 0;
      armed = true;
      process.send!({ type: 'armed' });
    } else if (msg.type === 'collect')
      void waitFor(() => received, n, DELIVERY_WAIT_MS).then(() => {
        armed = false;
        process.send!({ type: 'receipts', receipts });
      });
    else if (msg.type === 'stop') {
      for (const s of sockets) s.terminate();
      process.exit(0);
    }
  });
  process.send!({ type: 'open' });
}

if (process.argv.includes('--bare-ws-server')) bareWsServer(process.argv.includes('--durable'));
else if (process.argv.includes('--floor-clients')) {
  const [url, n] = process.argv.slice(process.argv.indexOf('--floor-clients') + 1);
  void floorClients(url!, Number(n));
}
