import { filter, pipe } from '@graphql-yoga/subscription';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { SlicedPubSub } from './fanout';

/**
 * Domain events, carried across server instances by PostgreSQL LISTEN/NOTIFY. `publish` runs
 * `pg_notify` on the caller's transaction, so an event is delivered only when (and if) the write that
 * caused it commits. Payloads carry ids only; subscribers read rows (NOTIFY payloads are < 8000 bytes and
 * never replayed).
 */
export interface EventTopics {
  'blueprint.activity': {
    blueprintId: string;
    kind: 'forked' | 'starred' | 'unstarred' | 'version' | 'changelog' | 'edited' | 'deleted' | 'transferred';
    subjectId: string | null;
    actorId: string;
  };
  'operation.updated': { operationId: string; principalId: string; status: string; step: number };
  'architecture.changed': { architectureId: string; slug: string; change: string; subjectId: string | null; actorId: string };
  /** `recipientCount`: how many inbox rows the broadcast wrote (absent from older senders). */
  'inbox.delivered': { broadcastId: string; recipientCount?: number };
}

export type Topic = keyof EventTopics;

const CHANNEL = 'bw_events';

type LocalTopics = { [T in Topic]: [EventTopics[T]] };

/**
 * Queues an event on `em`'s transaction: PostgreSQL sends it to every instance when (and only if) the
 * transaction commits, in commit order. For code that holds an EntityManager but no EventBus (e.g.
 * `recordVersion`); `EventBus.publish` is the same call.
 */
export async function publishOnCommit<T extends Topic>(em: EntityManager, topic: T, payload: EventTopics[T]): Promise<void> {
  // `at` (the writing transaction's start, in ms) lets each instance measure the lag to delivery. It is the
  // same for the whole transaction, so PostgreSQL still folds identical notifications of one transaction.
  const envelope = JSON.stringify({ topic, payload });
  await em.execute(`select pg_notify(?, ? || ',"at":' || floor(extract(epoch from now()) * 1000)::bigint || '}')`, [CHANNEL, envelope.slice(0, -1)]);
}

export class EventBus {
  // Local subscribers get each event in slices that yield to the event loop (fanout.ts).
  private readonly local = new SlicedPubSub<LocalTopics>();
  private listener: Client | null = null;
  private stopped = false;
  private readonly resumeListeners = new Set<() => void>();
  private readonly deliveryListeners = new Set<(topic: Topic, lagMs: number) => void>();
  /** Subscriptions (live streams) currently open on this instance. */
  openSubscriptions = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  /** Opens the LISTEN connection; reconnects when it drops. */
  async start(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        const { topic, payload, at } = JSON.parse(msg.payload) as { topic: Topic; payload: EventTopics[Topic]; at?: number };
        if (typeof at === 'number') for (const listener of this.deliveryListeners) listener(topic, Math.max(0, Date.now() - at));
        (this.local.publish as (t: Topic, p: unknown) => void)(topic, payload);
      } catch (err) {
        this.log('dropped a malformed event notification', err);
      }
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
        await this.start();
        // Notifications sent while the connection was down are lost for good: let consumers re-read.
        for (const listener of this.resumeListeners) listener();
        return;
      } catch (err) {
        this.log('event listener reconnect failed', err);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** Queues the event on `em`'s transaction (or sends it now when there is none). */
  async publish<T extends Topic>(em: EntityManager, topic: T, payload: EventTopics[T]): Promise<void> {
    await publishOnCommit(em, topic, payload);
  }

  /**
   * Calls `listener` each time the LISTEN connection is re-established after a failure; events of that
   * gap were never received, so consumers with durable rows (the inbox) re-read from their cursor.
   * Returns the function that removes the listener.
   */
  onResume(listener: () => void): () => void {
    this.resumeListeners.add(listener);
    return () => this.resumeListeners.delete(listener);
  }

  /** Calls `listener` with the topic and lag (ms since `pg_notify`) of every event this instance receives. */
  onDelivered(listener: (topic: Topic, lagMs: number) => void): () => void {
    this.deliveryListeners.add(listener);
    return () => this.deliveryListeners.delete(listener);
  }

  /**
   * Events of one topic as they arrive at this instance, optionally only those `keep` accepts. Use `keep`
   * rather than filtering in an `async function*`: a generator waiting for the next event cannot be
   * returned (unsubscribed) until one arrives, so each ended subscription would linger on the topic.
   */
  subscribe<T extends Topic>(topic: T, keep?: (event: EventTopics[T]) => boolean): AsyncIterableIterator<EventTopics[T]> {
    const source = (this.local.subscribe as (t: Topic) => AsyncIterableIterator<EventTopics[T]>)(topic);
    return this.counted(keep ? (pipe(source, filter(keep)) as AsyncIterableIterator<EventTopics[T]>) : source);
  }

  /** `iterator`, counted in `openSubscriptions` until it ends or is returned. */
  private counted<V>(iterator: AsyncIterableIterator<V>): AsyncIterableIterator<V> {
    this.openSubscriptions += 1;
    let open = true;
    const close = () => {
      if (open) this.openSubscriptions -= 1;
      open = false;
    };
    const counted: AsyncIterableIterator<V> = {
      next: async (...args: [] | [unknown]) => {
        const result = await iterator.next(...args);
        if (result.done) close();
        return result;
      },
      return: async (value?: unknown) => {
        close();
        return iterator.return ? iterator.return(value) : { done: true, value: value as V };
      },
      throw: async (err?: unknown) => {
        close();
        if (iterator.throw) return iterator.throw(err);
        throw err;
      },
      [Symbol.asyncIterator]: () => counted,
    };
    return counted;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
