/**
 * What bench:scale measures with (bench/scale.ts): its clients (the fork listeners and the delivery
 * subscribers) and the counters it reads around each measured window (CPU time of every process
 * involved, PostgreSQL's transactions and table reads).
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { Client as PgClient } from 'pg';
import { cpuMsOf } from './basics';

/** A graphql-ws client connected with `token`: the delivery half's subscribers, which read each message. */
export function connect(base: string, token: string): Promise<Client> {
  const client = createClient({
    url: base.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
  });
  // A refused socket (a cap, a bad token) rejects at once instead of leaving the run waiting for it.
  return new Promise((resolve, reject) => {
    const offConnected = client.on('connected', () => {
      offConnected();
      offClosed();
      resolve(client);
    });
    const offClosed = client.on('closed', (event) => {
      offConnected();
      offClosed();
      const { code, reason } = event as { code?: number; reason?: string };
      reject(new Error(`the WebSocket closed before it connected: ${code} ${reason}`));
    });
  });
}

/**
 * A listener as light as the protocol allows: a bare `ws` socket speaking graphql-transport-ws that counts
 * `next` messages without parsing them. The 60 activity listeners share the machine's two cores with the
 * servers; the graphql-ws client parsed and checked each message (about 47 µs of this process's CPU per
 * message, 2.8 ms per fork, charged to events-on only). Resolves once the server acknowledged the connection.
 */
export function countingListener(base: string, token: string, query: string, variables: Record<string, unknown>, onNext: () => void): Promise<WebSocket> {
  const NEXT = Buffer.from('"type":"next"');
  const PING = Buffer.from('"type":"ping"');
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(base.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    let acknowledged = false;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (data: Buffer) => {
      if (!acknowledged) {
        acknowledged = true;
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
        resolve(socket);
      } else if (data.indexOf(NEXT) >= 0) onNext();
      else if (data.indexOf(PING) >= 0) socket.send('{"type":"pong"}');
    });
    socket.on('close', (code, reason) => {
      if (!acknowledged) reject(new Error(`the WebSocket closed before it connected: ${code} ${reason.toString()}`));
    });
    socket.on('error', (err) => {
      if (!acknowledged) reject(err);
    });
  });
}

/** `use` with a `pg` client of its own on `databaseUrl`, closed afterwards. */
export async function withPgClient<T>(databaseUrl: string, use: (client: PgClient) => Promise<T>): Promise<T> {
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The database's work so far, from PostgreSQL's cumulative statistics: transactions committed (every
 * autocommit statement is one) and table reads (sequential plus index scans) per table. A backend flushes
 * its counters at most once a second (and when it goes idle), so readings are taken after a quiet pause.
 */
export function databaseWork(databaseUrl: string): Promise<{ xacts: number; scans: Map<string, number> }> {
  return withPgClient(databaseUrl, async (client) => {
    await client.query('select pg_stat_clear_snapshot()');
    const xacts = await client.query<{ n: string }>('select xact_commit::text as n from pg_stat_database where datname = current_database()');
    const rows = await client.query<{ relname: string; n: string }>(
      'select relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text as n from pg_stat_user_tables',
    );
    return { xacts: Number(xacts.rows[0]?.n ?? 0), scans: new Map(rows.rows.map((r) => [r.relname, Number(r.n)])) };
  });
}

/** CPU time (user + system, ms) each process has used so far. */
export function cpuMs(pids: number[]): number[] {
  return pids.map(cpuMsOf);
}

/** What a fork cost the database between two `databaseWork` readings. */
export function workPerFork(before: Awaited<ReturnType<typeof databaseWork>>, after: Awaited<ReturnType<typeof databaseWork>>, forks: number): string {
  const scans = [...after.scans]
    .map(([table, n]) => [table, (n - (before.scans.get(table) ?? 0)) / forks] as const)
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  const total = scans.reduce((sum, [, n]) => sum + n, 0);
  return `${((after.xacts - before.xacts) / forks).toFixed(1)} transactions, ${total.toFixed(1)} table reads (${scans
    .map(([table, n]) => `${table} ${n.toFixed(1)}`)
    .join(', ')}) per fork`;
}
