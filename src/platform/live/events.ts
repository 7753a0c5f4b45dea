import { filter, pipe } from '@graphql-yoga/subscription';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PostgresBackplane, type Backplane } from './backplane';
import { NatsBackplane } from './backplane-nats';
import { defaultEventSettings, type EventSettings } from '../config';
import { OutboxRelay, outboxWriteCount, setEventPublishing, writeOutbox, type OutboxEvent } from './outbox';
import { SlicedPubSub } from './fanout';

/**
 * Domain events, carried across server instances (docs/scale.md). `publish` writes the event to
 * the outbox table on the caller's transaction, so an event exists only when (and if) the write that
 * caused it commits, and nothing else happens inside the write. After the commit the relay
 * (`outbox.ts`) hands committed rows to the backplane: NATS JetStream with `NATS_URL`, else one NOTIFY
 * per relay pass. Every instance receives from the backplane, drops ids it has already dispatched, and
 * dispatches in process to its live subscriptions (`subscribe`). Payloads carry ids only; subscribers read rows.
 */
/**
 * The topics and their payloads. Platform names only its own (`live.token-changed`, live.ts); each area
 * declares its own in `<area>/<area>.events.ts` by adding to this interface (TypeScript declaration merging), e.g.
 * `declare module '../platform/live/events' { interface EventTopics { 'x.changed': { xId: string } } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the areas (declaration merging)
export interface EventTopics {}

export type Topic = keyof EventTopics;

type LocalTopics = { [T in Topic]: [EventTopics[T]] };

/** How many dispatched event ids each instance remembers to drop a second copy (a relay re-publish). */
const SEEN_MAX = 10_000;
/** Longest a write waits after its commit for the relay to publish its events. */
const RELAY_WAIT_MS = 1000;

/**
 * Writes an event to the outbox on `em`'s transaction: it is published when (and only if) the
 * transaction commits. For code that holds an EntityManager but no EventBus (e.g. `recordVersion`);
 * `EventBus.publish` is the same call.
 */
export async function publishOnCommit<T extends Topic>(em: EntityManager, topic: T, payload: EventTopics[T]): Promise<void> {
  await writeOutbox(em, topic, payload);
}

export class EventBus {
  // Local subscribers get each event in slices that yield to the event loop (fanout.ts).
  private readonly local = new SlicedPubSub<LocalTopics>();
  readonly backplane: Backplane;
  private relay: OutboxRelay | null = null;
  private relayedWrites = outboxWriteCount();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  private readonly resumeListeners = new Set<() => void>();
  private readonly deliveryListeners = new Set<(topic: Topic, lagMs: number) => void>();
  private readonly eventListeners = new Map<Topic, Set<(payload: never) => void>>();
  /** Subscriptions (live streams) currently open on this instance. */
  openSubscriptions = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: (msg: string, err?: unknown) => void,
    private readonly settings: EventSettings = defaultEventSettings,
  ) {
    this.backplane = settings.natsUrl ? new NatsBackplane(settings.natsUrl, settings.natsStream, log) : new PostgresBackplane(databaseUrl, log);
    if (!settings.publishing) setEventPublishing(false);
  }

  /** Starts receiving from the backplane, then the relay (which publishes what is already waiting). */
  async start(): Promise<void> {
    await this.backplane.start(
      (events) => this.dispatch(events),
      () => {
        for (const listener of this.resumeListeners) listener();
      },
    );
    this.relay = new OutboxRelay({
      databaseUrl: this.databaseUrl,
      target: this.backplane,
      pollMs: this.settings.relayPollMs,
      lingerMs: this.settings.relayLingerMs,
      retentionMs: this.settings.outboxRetentionMs,
      log: this.log,
    });
    this.relay.start();
  }

  /**
   * Call after every root transaction commits (the ORM's `afterTransactionCommit`, which it awaits): when
   * outbox rows were written since the last call, the relay publishes them now instead of at its next
   * poll, and the write waits for that pass (at most `RELAY_WAIT_MS`). So, as with a NOTIFY at commit, a
   * write's events are on the backplane before its caller hears that it succeeded; a backplane that is
   * down fails the pass at once and the write returns (its events wait in the outbox).
   */
  async committed(): Promise<void> {
    const writes = outboxWriteCount();
    if (writes === this.relayedWrites || !this.relay) return;
    this.relayedWrites = writes;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.relay.kick(), new Promise<void>((resolve) => (timer = setTimeout(resolve, RELAY_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Writes the event to the outbox on `em`'s transaction (or at once when there is none). */
  async publish<T extends Topic>(em: EntityManager, topic: T, payload: EventTopics[T]): Promise<void> {
    await writeOutbox(em, topic, payload);
    if (!em.getTransactionContext()) await this.committed();
  }

  /** The backplane's name and this instance's connection to it (`/healthz`). */
  backplaneStatus(): { name: 'postgres' | 'nats'; state: 'up' | 'down' } {
    return { name: this.backplane.name, state: this.backplane.state() };
  }

  /** Outbox rows this instance's relay published. */
  relayedCount(): number {
    return this.relay?.published ?? 0;
  }

  private dispatch(events: OutboxEvent[]): void {
    for (const event of events) {
      if (this.seen.has(event.id)) continue;
      this.seen.add(event.id);
      this.seenOrder.push(event.id);
      if (this.seenOrder.length > SEEN_MAX) this.seen.delete(this.seenOrder.shift()!);
      const topic = event.topic as Topic;
      if (typeof event.at === 'number') for (const listener of this.deliveryListeners) listener(topic, Math.max(0, Date.now() - event.at));
      for (const listener of this.eventListeners.get(topic) ?? []) (listener as (payload: unknown) => void)(event.payload);
      (this.local.publish as (t: Topic, p: unknown) => void)(topic, event.payload);
    }
  }

  /**
   * Calls `listener` each time the backplane connection is re-established after a failure; events of that
   * gap may never have been received, so consumers with durable rows (the inbox) re-read from their cursor.
   * Returns the function that removes the listener.
   */
  onResume(listener: () => void): () => void {
    this.resumeListeners.add(listener);
    return () => this.resumeListeners.delete(listener);
  }

  /**
   * Calls `listener` with each event of `topic` this instance receives, synchronously, in order, before the
   * event reaches any subscription: for state that the events after it are judged by (live.ts's tokens).
   * Returns the function that removes the listener.
   */
  onEvent<T extends Topic>(topic: T, listener: (payload: EventTopics[T]) => void): () => void {
    let set = this.eventListeners.get(topic);
    if (!set) this.eventListeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls `listener` with the topic and lag (ms since the writing transaction began) of every event this instance receives. */
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

  /** Stops the relay (after its running pass), then the backplane. */
  async stop(): Promise<void> {
    await this.relay?.stop();
    await this.backplane.stop();
  }
}
