import type { EntityManager } from '@mikro-orm/postgresql';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { executePrepared } from '../sql/database';

/**
 * The transactional outbox (docs/scale.md). A write inserts its events as `event_outbox` rows in
 * its own transaction, so an event exists exactly when the write committed, and nothing but an insert
 * happens inside the write (a NOTIFY there takes PostgreSQL's global commit lock). The relay publishes
 * committed rows through the backplane and stamps them sent.
 *
 * Order: one relay pass runs at a time across all instances (a transaction-level advisory lock, which
 * also works through PgBouncer in transaction mode), and each pass takes the unsent rows it can see in id
 * order. Ids come from a sequence taken at insert, so two writes committing concurrently can become
 * visible out of id order (id 11 committed while id 10 is still open). The relay never keeps a "last id"
 * cursor that such a row would fall behind: it selects by `sent_at is null`, so the late row goes out in
 * the next pass. Events therefore leave in visibility (commit) order, which is id order for the writes
 * of one session and for every write serialized by a lock (broadcasts take one); no event is skipped.
 *
 * Crashes: a relay that dies mid-pass rolls its transaction back, so its rows stay unsent and the next
 * pass (on any instance) publishes them again. With NATS the outbox id is the `Nats-Msg-Id`, so JetStream
 * drops the second copy; every instance also drops ids it has already dispatched (`EventBus`).
 */
export interface OutboxEvent {
  /** The outbox row's id (a bigint, as text). */
  id: string;
  topic: string;
  payload: unknown;
  /** When the writing transaction started, in ms since the epoch (for the delivery-lag metric). */
  at: number;
}

/**
 * Where the relay hands committed events to: a target outside the database (NATS JetStream) takes them
 * with `send`; one inside it (LISTEN/NOTIFY) runs the whole pass there with `pass`.
 */
export type RelayTarget = PublishingTarget | PassingTarget;

export interface PublishingTarget {
  /**
   * Publishes `events` in order, inside the relay's open transaction on `client`; resolves once all were
   * accepted and throws otherwise (the transaction is then rolled back and the rows stay unsent).
   */
  send(client: Client, events: OutboxEvent[]): Promise<void>;
}

export interface PassingTarget {
  /**
   * A whole relay pass in one statement on `client`, outside any transaction: take the lock `lockKey` or
   * answer 'busy', stamp at most `batch` unsent rows sent and publish them in `publishOrder`; answers how
   * many it published.
   */
  pass(client: Client, lockKey: number, batch: number): Promise<number | 'busy'>;
}

/** Rows written by `writeOutbox` in this process (the relay is kicked when a commit follows new ones). */
let outboxWrites = 0;

/** How many outbox rows this process wrote so far. */
export function outboxWriteCount(): number {
  return outboxWrites;
}

/** Off only for the scale bench's floor (`EVENT_PUBLISHING=off`): then no event is written at all. */
let publishing = true;

export function setEventPublishing(on: boolean): void {
  publishing = on;
}

/**
 * What a topic's owner adds to each of its events at insert, read in the write's own transaction: a SQL
 * expression of type jsonb (merged into the payload) and its parameters. The text must be the same for
 * every event of the topic (it is prepared under one name); only the parameters vary. E.g. activity
 * events carry whether everything they name is public, so the instances delivering them need no read for
 * most of them.
 */
export type OutboxEnricher = (payload: never) => { sql: string; params: unknown[] };
const enrichers = new Map<string, OutboxEnricher>();

/** Sets the enricher of `topic`'s rows (one per topic, owned by the area that reads them). */
export function enrichOutbox(topic: string, enricher: OutboxEnricher): void {
  enrichers.set(topic, enricher);
}

/** Writes one event as an outbox row on `em`'s transaction (or at once, when there is none). */
export async function writeOutbox(em: EntityManager, topic: string, payload: unknown): Promise<void> {
  if (!publishing) return;
  const enricher = enrichers.get(topic) as ((payload: unknown) => { sql: string; params: unknown[] }) | undefined;
  const extra = enricher?.(payload);
  // Prepared: one statement per write that makes events, planned once per connection. An enricher's text
  // is fixed per topic (only its parameters vary), so each enriched topic's statement has a name of its own.
  await executePrepared(
    em,
    extra ? `outbox_insert_${topic}` : 'outbox_insert',
    `insert into event_outbox (topic, payload) values (?, ?::jsonb${extra ? ` || (${extra.sql})` : ''})`,
    [topic, JSON.stringify(payload), ...(extra?.params ?? [])],
  );
  outboxWrites += 1;
}

/**
 * The order a pass publishes its rows in: token changes first, then by id. Ids are taken at insert, so in
 * one pass a row that committed AFTER a token was revoked can have the smaller id; live listeners judge
 * each event by the token changes they heard before it (live.ts, `LiveTokens`), so the token changes of
 * a pass go out before its other rows. Hearing of a revocation early only ends a stream sooner.
 */
export function publishOrder(a: OutboxEvent, b: OutboxEvent): number {
  // (A pass also takes every unsent token change, not only those among the oldest `BATCH` rows.)
  const first = Number(b.topic === TOKEN_CHANGED) - Number(a.topic === TOKEN_CHANGED);
  return first !== 0 ? first : BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0;
}
const TOKEN_CHANGED = 'live.token-changed';

/** The advisory lock a relay pass holds (transaction-level): one pass at a time per database. */
export const RELAY_LOCK = 7342026;
const BATCH = 500;
const PRUNE_EVERY_MS = 60_000;
/** A pass that published this recently means events are flowing: the next one lingers (`lingerMs`). */
const BUSY_WINDOW_MS = 50;
const PRUNE_BATCH = 5000;

export interface RelayOptions {
  databaseUrl: string;
  target: RelayTarget;
  /** Unsent rows nobody kicked this relay for (another instance died before relaying) wait at most this. */
  pollMs: number;
  /**
   * While events flow, a pass first waits this long, gathering the commits of concurrent writes into one
   * pass (one statement and one NOTIFY, or one publish round). Unset or 0: never waits.
   */
  lingerMs?: number;
  retentionMs: number;
  log: (msg: string, err?: unknown) => void;
}

/**
 * Publishes committed outbox rows. `kick()` after a commit that wrote rows; a timer also polls, for rows
 * left by an instance that died between its commit and its relay pass. Uses one connection of its own.
 */
export class OutboxRelay {
  private client: Client | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** Waiting `lingerMs` before a pass: a kick now is served by that pass, not by one more after it. */
  private lingering = false;
  /** When the last pass that published something ended (`performance.now()`); -Infinity before one did. */
  private lastPublished = -Infinity;
  /** Callers of `kick` waiting for the next pass to finish. */
  private waiting: Array<() => void> = [];
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private lastPrune = 0;
  private failing = false;
  /** Rows this relay published (for metrics). */
  published = 0;

  constructor(private readonly options: RelayOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.kick(), this.options.pollMs);
    this.timer.unref();
    void this.kick();
  }

  /**
   * Runs a pass soon (one more after the current one, when one is running). Resolves once a pass that
   * started after this call has finished (published what it found, or failed and left it for later).
   */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.lingering) return done;
    if (this.running) this.again = true;
    else this.running = this.loop().finally(() => (this.running = null));
    return done;
  }

  /** Resolves when no pass is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    do {
      // Only while events flow (a pass published moments ago): a lone write's events go out at once.
      const linger = this.options.lingerMs ?? 0;
      if (linger > 0 && performance.now() - this.lastPublished < BUSY_WINDOW_MS) {
        this.lingering = true;
        await new Promise((resolve) => setTimeout(resolve, linger));
        this.lingering = false;
      }
      this.again = false;
      const waiting = this.waiting;
      this.waiting = [];
      if ((await this.drain()) > 0) this.lastPublished = performance.now();
      for (const resolve of waiting) resolve();
    } while (this.again && !this.stopped);
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /**
   * Passes until a pass leaves nothing behind. While another instance's pass holds the lock, waits and
   * tries again: the rows of the commit that kicked us may have become visible after that pass looked.
   * Answers how many rows its passes published.
   */
  private async drain(): Promise<number> {
    let published = 0;
    for (let busy = 0; !this.stopped && busy < 100;) {
      let result: number | 'busy';
      try {
        result = await this.pass();
        if (this.failing) this.options.log('event relay recovered');
        this.failing = false;
      } catch (err) {
        if (!this.failing) this.options.log('event relay pass failed; the outbox keeps the events and the relay retries', err);
        this.failing = true;
        this.dropClient();
        return published;
      }
      if (result === 'busy') {
        busy += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      } else {
        published += result;
        if (result < BATCH) return published;
      }
    }
    return published;
  }

  private async connection(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client({ connectionString: this.options.databaseUrl, keepAlive: true });
    client.on('error', () => {
      if (this.client === client) this.dropClient();
    });
    await client.connect();
    this.client = client;
    return client;
  }

  private dropClient(): void {
    const client = this.client;
    this.client = null;
    void client?.end().catch(() => undefined);
  }

  /**
   * One transaction: take the lock (or report 'busy'), stamp the unsent rows sent and publish them in
   * `publishOrder`; a failed publish rolls the stamps back. A target that can do all of it in the database
   * does it in one round trip (`RelayTarget.pass`); otherwise three: begin with the lock and the stamping
   * (which answers the rows) in one message, the publish, the commit.
   */
  private async pass(): Promise<number | 'busy'> {
    const client = await this.connection();
    const { target } = this.options;
    let published: number | 'busy';
    if ('pass' in target) published = await target.pass(client, RELAY_LOCK, BATCH);
    else {
      // Four statements in one simple-protocol message (no parameters): one round trip. The stamping must
      // take its snapshot after the lock was taken (so it sees the stamps of the pass that held it before),
      // hence a statement of its own; it takes the lock again (re-entrant), so it stamps nothing without it.
      // When the first try failed, the second may still have won it with an older snapshot: roll back.
      // The rows it takes are those the LISTEN/NOTIFY pass takes (`event_outbox_relay_notify`, migration
      // Migration20261128000200_outbox_relay_pass): a change to one selection is a change to both.
      // The commit does not wait for the disk: a stamp lost in a crash means one more publish, which
      // JetStream drops by its Nats-Msg-Id and every instance by the outbox id.
      const opened = (await client.query(
        `begin; set local synchronous_commit = off; select pg_try_advisory_xact_lock(${RELAY_LOCK}) as locked;
         update event_outbox set sent_at = now()
          where (select pg_try_advisory_xact_lock(${RELAY_LOCK}))
            and id in (select id from event_outbox where sent_at is null and topic = '${TOKEN_CHANGED}'
                       union (select id from event_outbox where sent_at is null order by id limit ${BATCH}))
          returning id::text as id, topic, payload, (extract(epoch from created_at) * 1000)::float8 as at`,
      )) as unknown as [unknown, unknown, { rows: Array<{ locked: boolean }> }, { rows: OutboxEvent[] }];
      try {
        if (!opened[2].rows[0]?.locked) {
          await client.query('rollback');
          return 'busy';
        }
        const rows = opened[3].rows;
        // `returning` answers in no particular order.
        rows.sort(publishOrder);
        if (rows.length > 0) await target.send(client, rows);
        await client.query('commit');
        published = rows.length;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      }
    }
    if (published !== 'busy') this.published += published;
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      await client.query(
        `delete from event_outbox where id in (
           select id from event_outbox where sent_at is not null and sent_at < now() - make_interval(secs => $1::float8 / 1000) limit $2)`,
        [this.options.retentionMs, PRUNE_BATCH],
      );
      this.lastPrune = Date.now();
    }
    return published;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

/** The outbox's unsent rows and the age of the oldest one (seconds; 0 when none), for `/metrics`. */
export async function outboxBacklog(query: (sql: string) => Promise<Array<{ n: number; age: number }>>): Promise<{ unsent: number; ageSeconds: number }> {
  const rows = await query(
    `select count(*)::int as n, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age from event_outbox where sent_at is null`,
  );
  return { unsent: rows[0]?.n ?? 0, ageSeconds: Math.max(0, rows[0]?.age ?? 0) };
}
