import { Client } from 'pg';
import type { OutboxEvent, PassingTarget, RelayTarget } from './outbox';

/**
 * What carries relayed events to every instance: PostgreSQL LISTEN/NOTIFY (no `NATS_URL`) or NATS
 * JetStream (`backplane-nats.ts`). The relay sends through it; each instance receives from it and
 * dispatches in process (`EventBus`).
 */
export type Backplane = RelayTarget & BackplaneReceiver;

export interface BackplaneReceiver {
  readonly name: 'postgres' | 'nats';
  /**
   * Starts receiving. `deliver` gets the events in the order they were published; `resumed` is called
   * after a gap in which events may have been missed (consumers with durable rows re-read from a cursor).
   */
  start(deliver: (events: OutboxEvent[]) => void, resumed: () => void): Promise<void>;
  /** Whether this instance is connected to the backplane right now. */
  state(): 'up' | 'down';
  stop(): Promise<void>;
}

const CHANNEL = 'bw_events';
/** NOTIFY payloads must stay under 8,000 bytes; events carry ids only (a few hundred bytes each). */
const PAYLOAD_MAX = 7_500;

/**
 * LISTEN/NOTIFY, for one database without NATS. The relay's own transaction notifies (after the writes
 * committed, never inside them), usually once per pass, in one statement; every instance LISTENs on one
 * connection that reconnects when it drops. Notifications sent while it was down are lost: `resumed` says so.
 */
export class PostgresBackplane implements PassingTarget, BackplaneReceiver {
  readonly name = 'postgres' as const;
  private listener: Client | null = null;
  private stopped = false;
  private deliver: (events: OutboxEvent[]) => void = () => undefined;
  private resumed: () => void = () => undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  /**
   * One relay pass as one statement (the function `event_outbox_relay_notify`, a migration): the lock,
   * the stamping and one NOTIFY per JSON array of events under `PAYLOAD_MAX` bytes, sent at its commit.
   */
  async pass(client: Client, lockKey: number, batch: number): Promise<number | 'busy'> {
    const { rows } = await client.query<{ n: number }>('select event_outbox_relay_notify($1, $2, $3, $4) as n', [lockKey, batch, CHANNEL, PAYLOAD_MAX]);
    const n = rows[0]?.n ?? 0;
    return n < 0 ? 'busy' : n;
  }

  state(): 'up' | 'down' {
    return this.listener ? 'up' : 'down';
  }

  async start(deliver: (events: OutboxEvent[]) => void, resumed: () => void): Promise<void> {
    this.deliver = deliver;
    this.resumed = resumed;
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      let events: OutboxEvent[];
      try {
        events = JSON.parse(msg.payload) as OutboxEvent[];
      } catch (err) {
        this.log('dropped a malformed event notification', err);
        return;
      }
      if (Array.isArray(events)) this.deliver(events);
    });
    client.on('error', (err) => {
      // Only the live listener reconnects (once): a client that failed while starting is its caller's to retry.
      if (this.listener !== client) return;
      this.log('event listener connection failed; reconnecting', err);
      void this.reconnect();
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
  }

  private async reconnect(): Promise<void> {
    const old = this.listener;
    this.listener = null;
    await old?.end().catch(() => undefined);
    while (!this.stopped) {
      try {
        await this.listen();
        // Notifications sent while the connection was down are lost for good: let consumers re-read.
        this.resumed();
        return;
      } catch (err) {
        this.log('event listener reconnect failed', err);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
