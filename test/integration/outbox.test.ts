import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { databaseSchema } from '../../src/db';
import { adminQuery, ensureDatabase, openDatabase, withDatabase } from '../../src/platform/sql/database';
import { OutboxRelay, type OutboxEvent, type PublishingTarget } from '../../src/platform/live/outbox';
import { PostgresBackplane } from '../../src/platform/live/backplane';
import { createBlueprint } from '../fixtures/blueprints';
import { createTestDatabase } from '../helpers/database';
import { startTestServer } from '../helpers/server';
import { connectWs, Subscription } from '../helpers/ws';

/**
 * The transactional outbox (docs/scale.md): events are rows written by the write's transaction,
 * relayed after commit, each exactly once however many relays run, in commit order, and pruned once sent.
 */

/** A relay target that records what it was handed. */
class Recorder implements PublishingTarget {
  readonly sent: OutboxEvent[] = [];
  /** How many events each accepted publish carried. */
  readonly batches: number[] = [];
  fail = false;
  async send(_client: Client, events: OutboxEvent[]): Promise<void> {
    if (this.fail) throw new Error('backplane down');
    this.sent.push(...events);
    this.batches.push(events.length);
  }
}

const silent = () => undefined;

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the outbox relay, on a real database', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await db.drop();
  });
  beforeEach(async () => {
    await sql.query('truncate event_outbox');
  });

  const insert = (client: Client, n: number) =>
    client.query(`insert into event_outbox (topic, payload) select 't', jsonb_build_object('n', g) from generate_series(1, $1) g`, [n]);

  it('three concurrent relays publish each committed row exactly once, in id order, and stamp it sent', async () => {
    const targets = [new Recorder(), new Recorder(), new Recorder()];
    const relays = targets.map((target) => new OutboxRelay({ databaseUrl: db.url, target, pollMs: 10, retentionMs: 3_600_000, log: silent }));
    relays.forEach((r) => r.start());
    try {
      for (let i = 0; i < 40; i++) {
        await insert(sql, 5);
        relays[i % 3]!.kick();
      }
      await until(async () => (await sql.query('select count(*)::int as n from event_outbox where sent_at is null')).rows[0].n === 0);
      await Promise.all(relays.map((r) => r.idle()));
      const all = targets.flatMap((t) => t.sent);
      const ids = all.map((e) => Number(e.id));
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
      // Each relay's own sequence is increasing, and the passes never overlap: merged by time, ids ascend.
      for (const target of targets) {
        const own = target.sent.map((e) => Number(e.id));
        expect(own).toEqual([...own].sort((a, b) => a - b));
      }
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  it('publishes a row that commits after a higher id was already published (no id-cursor gap)', async () => {
    const target = new Recorder();
    const relay = new OutboxRelay({ databaseUrl: db.url, target, pollMs: 60_000, retentionMs: 3_600_000, log: silent });
    const slow = new Client({ connectionString: db.url });
    await slow.connect();
    try {
      await slow.query('begin');
      await slow.query(`insert into event_outbox (topic, payload) values ('t', '{"who":"slow"}')`);
      await sql.query(`insert into event_outbox (topic, payload) values ('t', '{"who":"fast"}')`);
      relay.start();
      await until(() => target.sent.length === 1);
      expect(target.sent[0]!.payload).toEqual({ who: 'fast' });
      await slow.query('commit');
      relay.kick();
      await until(() => target.sent.length === 2);
      expect(target.sent[1]!.payload).toEqual({ who: 'slow' });
      // The late row has the lower id: it left in commit order, not id order.
      expect(Number(target.sent[1]!.id)).toBeLessThan(Number(target.sent[0]!.id));
    } finally {
      await relay.stop();
      await slow.end();
    }
  });

  it('while events flow, lingers so that concurrent commits share one pass; after a quiet spell, publishes at once', async () => {
    const target = new Recorder();
    const relay = new OutboxRelay({ databaseUrl: db.url, target, pollMs: 60_000, lingerMs: 3000, retentionMs: 3_600_000, log: silent });
    relay.start();
    try {
      await relay.idle(); // a pass that published nothing: events do not count as flowing yet
      await insert(sql, 1);
      await relay.kick(); // not held; it published, so events count as flowing now
      const kicks: Array<Promise<void>> = [];
      for (let i = 0; i < 3; i++) {
        await insert(sql, 1);
        kicks.push(relay.kick());
      }
      await Promise.all(kicks);
      expect(target.batches).toEqual([1, 3]);
      await new Promise((resolve) => setTimeout(resolve, 200)); // quiet: longer than the busy window
      await insert(sql, 1);
      const kicked = performance.now();
      await relay.kick();
      expect(performance.now() - kicked).toBeLessThan(3000); // not held for the linger
      expect(target.batches).toEqual([1, 3, 1]);
    } finally {
      await relay.stop();
    }
  });

  it('keeps the rows when the backplane refuses them and publishes them once it accepts', async () => {
    const target = new Recorder();
    target.fail = true;
    const relay = new OutboxRelay({ databaseUrl: db.url, target, pollMs: 20, retentionMs: 3_600_000, log: silent });
    relay.start();
    try {
      await insert(sql, 3);
      relay.kick();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await sql.query('select count(*)::int as n from event_outbox where sent_at is null')).rows[0].n).toBe(3);
      target.fail = false;
      await until(async () => (await sql.query('select count(*)::int as n from event_outbox where sent_at is null')).rows[0].n === 0);
      expect(target.sent.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    } finally {
      await relay.stop();
    }
  });

  it('publishes the token changes of a pass before its other rows, whatever their ids', async () => {
    await insert(sql, 3);
    await sql.query(`insert into event_outbox (topic, payload) values ('live.token-changed', '{"tokenHash":"h"}')`);
    const target = new Recorder();
    const relay = new OutboxRelay({ databaseUrl: db.url, target, pollMs: 60_000, retentionMs: 3_600_000, log: silent });
    relay.start();
    await relay.idle();
    await relay.stop();
    expect(target.sent.map((e) => e.topic)).toEqual(['live.token-changed', 't', 't', 't']);
    expect(target.sent.slice(1).map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('takes every unsent token change into a pass, however many older rows wait, and publishes them first', async () => {
    await sql.query(`begin;
      insert into event_outbox (topic, payload) select 't', jsonb_build_object('n', g) from generate_series(1, 600) g;
      insert into event_outbox (topic, payload) values ('live.token-changed', '{"tokenHash":"late"}');
      commit`);
    for (const target of [new Recorder(), new PostgresBackplane(db.url, silent)]) {
      const received: OutboxEvent[] = [];
      if (target instanceof PostgresBackplane)
        await target.start(
          (events) => received.push(...events),
          () => undefined,
        );
      const relay = new OutboxRelay({ databaseUrl: db.url, target, pollMs: 60_000, retentionMs: 3_600_000, log: silent });
      relay.start();
      await relay.idle();
      await relay.stop();
      if (target instanceof PostgresBackplane) {
        await until(() => received.length === 601);
        await target.stop();
      } else received.push(...target.sent);
      expect(received[0]).toMatchObject({ topic: 'live.token-changed', payload: { tokenHash: 'late' } });
      expect(received.slice(1).map((e) => (e.payload as { n: number }).n)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      await sql.query('update event_outbox set sent_at = null');
    }
  });

  it('LISTEN/NOTIFY: three relays passing in one statement each deliver every row once to every listener, in order, in NOTIFYs under 8,000 bytes', async () => {
    const received = [0, 1, 2].map(() => [] as OutboxEvent[]);
    const backplanes = received.map(() => new PostgresBackplane(db.url, silent));
    await Promise.all(
      backplanes.map((b, i) =>
        b.start(
          (events) => received[i]!.push(...events),
          () => undefined,
        ),
      ),
    );
    const raw = new Client({ connectionString: db.url });
    await raw.connect();
    const sizes: number[] = [];
    raw.on('notification', (m) => sizes.push(Buffer.byteLength(m.payload ?? '')));
    await raw.query('listen bw_events');
    const relays = backplanes.map((target) => new OutboxRelay({ databaseUrl: db.url, target, pollMs: 10, retentionMs: 3_600_000, log: silent }));
    relays.forEach((r) => r.start());
    try {
      // 150 small rows, then 20 of about 1,000 bytes (several must share a NOTIFY, none may overflow one).
      for (let i = 0; i < 30; i++) {
        await insert(sql, 5);
        void relays[i % 3]!.kick();
      }
      // One transaction: the big rows and the token change (the higher id) become visible to the same pass.
      await sql.query(`begin;
        insert into event_outbox (topic, payload) select 'big', jsonb_build_object('n', g, 'pad', repeat('x', 1000)) from generate_series(1, 20) g;
        insert into event_outbox (topic, payload) values ('live.token-changed', '{"tokenHash":"h"}');
        commit`);
      await relays[0]!.kick();
      await until(() => received.every((r) => r.length === 171));
      await Promise.all(relays.map((r) => r.idle()));
      for (const events of received) {
        const ids = events.map((e) => Number(e.id));
        expect(new Set(ids).size).toBe(171);
        // The token change went out first in its pass: before the 20 big rows of the same pass.
        const token = events.findIndex((e) => e.topic === 'live.token-changed');
        expect(events.slice(token + 1).filter((e) => e.topic === 'big')).toHaveLength(20);
        const others = events.filter((e) => e.topic !== 'live.token-changed').map((e) => Number(e.id));
        expect(others).toEqual([...others].sort((a, b) => a - b));
        expect(events.find((e) => e.topic === 'big')!.payload).toEqual({ n: 1, pad: 'x'.repeat(1000) });
        expect(typeof events[0]!.at).toBe('number');
      }
      expect(Math.max(...sizes)).toBeLessThan(8000);
      expect(sizes.length).toBeGreaterThan(3);
      expect((await sql.query('select count(*)::int as n from event_outbox where sent_at is null')).rows[0].n).toBe(0);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await Promise.all(backplanes.map((b) => b.stop()));
      await raw.end();
    }
  });

  it('prunes sent rows older than the retention', async () => {
    await insert(sql, 4);
    await sql.query(`update event_outbox set sent_at = now() - interval '2 hours' where id in (select id from event_outbox order by id limit 2)`);
    const relay = new OutboxRelay({ databaseUrl: db.url, target: new Recorder(), pollMs: 60_000, retentionMs: 3_600_000, log: silent });
    relay.start();
    await relay.idle();
    await relay.stop();
    // The two old sent rows are gone; the two unsent ones were just sent (and are kept for the retention).
    const rows = (await sql.query('select sent_at from event_outbox')).rows;
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.sent_at !== null)).toBe(true);
  });
});

describe('writes through the server', () => {
  it('a broadcast writes one outbox row in its transaction, which the relay stamps sent and delivers live', async () => {
    const server = await startTestServer();
    const sql = new Client({ connectionString: server.databaseUrl });
    await sql.connect();
    try {
      const owner = await server.rest.agentToken('outbox-owner');
      const bp = await createBlueprint(server.rest, owner, { name: 'Outbox source' });
      const subscriberToken = await server.rest.agentToken('outbox-sub');
      expect((await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: subscriberToken })).status).toBe(200);
      const client = connectWs(server.url, subscriberToken);
      const sub = new Subscription<any>();
      sub.dispose = client.client.subscribe(
        { query: 'subscription { broadcastReceived { broadcast { message } } }' },
        { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, {
        token: owner,
        body: { message: 'through the outbox', type: 'changelog', severity: 'info' },
      });
      expect(sent.status).toBe(201);
      const got = await sub.next();
      expect(got.data.broadcastReceived.broadcast.message).toBe('through the outbox');
      await until(
        async () => (await sql.query(`select count(*)::int as n from event_outbox where topic = 'inbox.delivered' and sent_at is not null`)).rows[0].n === 1,
      );
      await client.close();
    } finally {
      await sql.end();
      await server.close();
    }
  });
});

describe('no NOTIFY inside a write', () => {
  it('only the backplane (the relay, after commit) calls pg_notify; no domain code does', () => {
    const root = path.resolve(__dirname, '..', '..', 'src');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.ts$/.test(name) && /pg_notify\s*\(|['"`]\s*notify\s/i.test(readFileSync(full, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')))
          offenders.push(path.relative(root, full));
      }
    };
    walk(root);
    // The relay's one-statement pass (a function the migration defines, called by platform/live/backplane.ts).
    expect(offenders).toEqual(['db/migrations/Migration20261128000200_outbox_relay_pass.ts']);
  });
});

describe('instances starting together on an empty database', () => {
  it('take turns creating the database and applying the migrations instead of racing', async () => {
    const server = process.env.BW_TEST_SERVER_URL!;
    const name = `bw_test_migrate_${process.pid}_${Date.now()}`;
    const url = withDatabase(server, name);
    // Nor race to create the database itself.
    await Promise.all([0, 1, 2].map(() => ensureDatabase(url)));
    try {
      const orms = await Promise.all([0, 1, 2].map(() => openDatabase(url, databaseSchema)));
      await Promise.all(orms.map((orm) => orm.close()));
    } finally {
      await adminQuery(server, `drop database if exists ${name} with (force)`);
    }
  });
});
