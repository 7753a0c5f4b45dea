import { Client } from 'pg';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { createTestDatabase } from '../helpers/database';
import { eventually } from '../helpers/wait';
import { TestNats } from '../helpers/nats';
import { TestPgBouncer } from '../helpers/pgbouncer';
import { PrivatePostgres } from '../helpers/private-postgres';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, Subscription } from '../helpers/ws';

/**
 * With NATS set, PostgreSQL carries no event traffic: no NOTIFY anywhere (counted by pg_stat_statements on
 * a PostgreSQL of the test's own, since the shared server does not preload it), and the server works
 * through a real PgBouncer in transaction pooling (no LISTEN, no named prepared statements, no startup
 * settings). docs/scale.md.
 */
jest.setTimeout(300_000);

let nats: TestNats;
beforeAll(async () => {
  nats = await TestNats.start();
});
afterAll(async () => {
  await nats?.close();
});

/** Some of every kind of write that makes an event, and a live subscriber that must receive a broadcast. */
async function burst(server: TestServer): Promise<void> {
  const owner = await server.rest.agentToken('burst-owner');
  const reader = await server.rest.agentToken('burst-reader');
  const source = await createBlueprint(server.rest, owner, { name: 'Burst source' });
  expect((await server.rest.post(`/api/blueprints/${source.id}/subscription`, { token: reader })).status).toBe(200);
  const ws = connectWs(server.url, reader);
  const sub = new Subscription<any>();
  sub.dispose = ws.client.subscribe(
    { query: 'subscription { broadcastReceived(after: "0") { broadcast { message } } }' },
    { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
  );
  try {
    for (let i = 0; i < 3; i++) await fork(server.rest, reader, source.id);
    expect((await server.rest.post(`/api/blueprints/${source.id}/star`, { token: reader })).status).toBeLessThan(300);
    // Concurrent authenticated reads: many pooled connections over few server connections.
    const reads = await Promise.all(Array.from({ length: 20 }, () => server.rest.get('/api/inbox', { token: reader })));
    expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
    for (let i = 0; i < 5; i++) {
      const sent = await server.rest.post(`/api/blueprints/${source.id}/broadcasts`, {
        token: owner,
        body: { message: `burst ${i}`, type: 'changelog', severity: 'info' },
      });
      expect(sent.status).toBe(201);
    }
    const got: string[] = [];
    for (let i = 0; i < 5; i++) got.push((await sub.next(30_000)).data.broadcastReceived.broadcast.message);
    expect(got).toEqual(['burst 0', 'burst 1', 'burst 2', 'burst 3', 'burst 4']);
  } finally {
    await ws.close();
  }
}

async function unsent(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('select count(*)::int as n from event_outbox where sent_at is null')).rows[0].n;
  } finally {
    await client.end();
  }
}

describe('pg_stat_statements on a PostgreSQL of our own', () => {
  let pg: PrivatePostgres;
  beforeAll(async () => {
    pg = await PrivatePostgres.start(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all']);
  });
  afterAll(async () => {
    await pg?.close();
  });

  async function notifyCalls(url: string, run: (server: TestServer) => Promise<void>, events: { natsUrl?: string; natsStream?: string }) {
    const server = await startTestServer({ databaseUrl: url, events });
    const stats = new Client({ connectionString: url });
    await stats.connect();
    try {
      await stats.query('create extension if not exists pg_stat_statements');
      await stats.query('select pg_stat_statements_reset()');
      await run(server);
      await eventually(
        async () => (await unsent(url)) === 0,
        30_000,
        () => 'outbox not drained',
      );
      const calls = async (pattern: string) =>
        Number((await stats.query(`select coalesce(sum(calls), 0)::int as n from pg_stat_statements where query ilike $1`, [pattern])).rows[0].n);
      return { notify: (await calls('%pg_notify%')) + (await calls('notify %')), outbox: await calls('%insert into event_outbox%') };
    } finally {
      await stats.end();
      await server.close();
    }
  }

  it('with NATS set, a burst of writes makes no pg_notify call at all', async () => {
    const counts = await notifyCalls(pg.url('bw_with_nats'), burst, { natsUrl: nats.url, natsStream: 'BW_STATS_NATS' });
    expect(counts.outbox).toBeGreaterThanOrEqual(10);
    expect(counts.notify).toBe(0);
  });

  it('without NATS only the relay notifies (the view does see pg_notify), fewer times than events were written', async () => {
    const counts = await notifyCalls(pg.url('bw_without_nats'), burst, {});
    expect(counts.notify).toBeGreaterThan(0);
    expect(counts.notify).toBeLessThanOrEqual(counts.outbox);
  });
});

describe('through a real PgBouncer in transaction pooling, with NATS', () => {
  let bouncer: TestPgBouncer;
  let db: { url: string; drop(): Promise<void> };
  let server: TestServer;
  beforeAll(async () => {
    const upstream = new URL(process.env.BW_TEST_SERVER_URL!);
    bouncer = await TestPgBouncer.start({ host: upstream.hostname, port: Number(upstream.port || 5432) }, 4);
    db = await createTestDatabase();
    server = await startTestServer({
      databaseUrl: bouncer.through(db.url),
      database: { transactionPooling: true, poolMax: 12 },
      events: { natsUrl: nats.url, natsStream: 'BW_POOLED' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await bouncer?.close();
    await db?.drop();
  });

  it('serves reads, writes and live events through 4 server connections shared by 12 pooled ones', async () => {
    const health = await server.rest.get('/healthz');
    expect(health.body).toEqual({ status: 'ok', backplane: { name: 'nats', state: 'up' } });
    await burst(server);
    await eventually(
      async () => (await unsent(db.url)) === 0,
      30_000,
      () => 'outbox not drained',
    );
  });

  it('refuses to start in transaction pooling without NATS_URL (LISTEN needs a session)', async () => {
    await expect(startTestServer({ databaseUrl: bouncer.through(db.url), database: { transactionPooling: true } })).rejects.toThrow(/needs NATS_URL/);
  });
});
