import type { EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import type { RequestContext } from '../context';
import type { EventBus, EventTopics, Topic } from './events';
import { SliceClock, yieldToLoop } from './fanout';
import { liveTokens, type LiveTokens, type StreamEnd, type TokenStamp } from './live';
import { LiveFeed, type DurableReader, type FeedRules, type FrameEncoder } from './live-feed';

/**
 * Shared live streams: one read per event and instance, however many subscribers listen here. Two kinds:
 * - durable streams: per-receiver rows (an inbox) announced by one bus event per write;
 * - shared streams of in-process events (`replay` absent): the area resolves each event once for all the
 *   receivers of this instance (e.g. who may see a blueprint's activity), instead of once per subscriber.
 * The area that owns the topic describes it (`DurableTopic`); this module listens, reads and delivers:
 * - one hub per server instance and topic listens to the topic while anyone is subscribed here, and for
 *   each event makes ONE read of the items of the receivers connected to this instance and ONE check of
 *   their tokens (none when every token is known valid, `LiveTokens`), however many they are; then it
 *   hands each receiver its item in one loop;
 * - each durable subscriber is a `LiveFeed` with the receiver's cursor: it starts listening BEFORE it reads
 *   anything, replays the rows after the client's cursor, and continues live without gaps or duplicates;
 *   whenever events may have been lost (the backplane reconnected, a read failed, the client fell
 *   `liveQueueMax` behind) it re-reads from its cursor. A shared stream without rows has nothing to re-read:
 *   a failed read or a client too far behind ends it with CONFLICT; a backplane reconnect does not end it
 *   (like every stream of in-process events, it misses what was published during the gap);
 * - events are handled in the order the backplane delivered them (commit order); those that arrived while
 *   the previous ones were being read are read together (`readBatch`) and share one token check.
 */
export interface DurableTopic<K extends Topic, T> extends FeedRules<T> {
  /** Names this topic's hub among the instance's (one per name and event bus). */
  readonly name: string;
  /** The bus topic announcing new rows. */
  readonly topic: K;
  /** The receiver's rows; absent for a shared stream of in-process events. */
  readonly replay?: DurableReader<T>;
  /**
   * The receivers of this instance an event may concern (cheap, synchronous): only their tokens are
   * checked and only they are passed to `read`; none: the event costs nothing here. Absent: every receiver.
   */
  receiversOf?(event: EventTopics[K], listening: ReadonlyMap<string, unknown>): string[];
  /**
   * The items one event brings to the receivers in `listening` (receiver ids of this instance, each with
   * the hub's entry for it), in the order they are to be delivered: one read for all of them. Each item
   * comes with its receiver's entry (`listening.get(receiver)`), so the hub finds the receiver's
   * subscriptions without looking it up again. Items are shared by every subscription of the receiver
   * (read-only).
   */
  read<V>(em: EntityManager, event: EventTopics[K], listening: ReadonlyMap<string, V>): Promise<Array<[entry: V, item: T]>>;
  /**
   * The items of several events that waited together, each for its own receivers, in one read (optional;
   * without it each event is read on its own, all at once). Answers one list per event, in their order.
   */
  readBatch?<V>(em: EntityManager, batch: ReadonlyArray<Pending<K, V>>): Promise<Array<Array<[entry: V, item: T]>>>;
  /** The direct path for this selection (`FrameEncoder`), or null: run the document for every event. */
  frames?(info: GraphQLResolveInfo): FrameEncoder<T> | null;
}

/** One event of a batch and the receivers of this instance it concerns. */
export interface Pending<K extends Topic, V = unknown> {
  event: EventTopics[K];
  listening: ReadonlyMap<string, V>;
}

const NO_TOKENS: ReadonlySet<string> = new Set();

/** At most this many waiting events are read and delivered together. */
const BATCH_MAX = 64;

interface Listener<T> extends TokenStamp {
  feed: LiveFeed<T>;
  /** The last dispatch (`DurableHub.serial`) that checked this listener's token before its read. */
  checkedIn: number;
}

/**
 * One receiver's subscriptions on this instance. `listeners` is replaced, never changed in place, so a
 * delivery loop goes on over the list it started with; `gone` once the last one left (a receiver that
 * listens again gets a new entry).
 */
interface Receiver<T> {
  readonly id: string;
  listeners: ReadonlyArray<Listener<T>>;
  gone: boolean;
}

class DurableHub<K extends Topic, T> {
  private readonly listeners = new Map<string, Receiver<T>>();
  private count = 0;
  /** Numbers the dispatches (`Listener.checkedIn`). */
  private serial = 0;
  private source: AsyncIterator<EventTopics[K]> | null = null;
  private readonly pending: Array<EventTopics[K]> = [];
  private draining = false;
  private offResume: (() => void) | null = null;

  constructor(
    private readonly topic: DurableTopic<K, T>,
    private readonly em: EntityManager,
    private readonly events: EventBus,
    private readonly tokens: LiveTokens,
  ) {}

  /** Starts handing this receiver's items to `feed` at once; returns the function that stops it. */
  listen(receiver: string, tokenHash: string | null, feed: LiveFeed<T>): () => void {
    let entry = this.listeners.get(receiver);
    if (!entry) this.listeners.set(receiver, (entry = { id: receiver, listeners: [], gone: false }));
    const listener: Listener<T> = { tokenHash, feed, checkedIn: -1, tokenEpoch: -1, validUntil: 0 };
    entry.listeners = [...entry.listeners, listener];
    this.count += 1;
    if (!this.source) this.start();
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      entry.listeners = entry.listeners.filter((l) => l !== listener);
      if (entry.listeners.length === 0) {
        entry.gone = true;
        if (this.listeners.get(receiver) === entry) this.listeners.delete(receiver);
      }
      this.count -= 1;
      if (this.count === 0) this.stop();
    };
  }

  private start(): void {
    const source = this.events.subscribe(this.topic.topic)[Symbol.asyncIterator]();
    this.source = source;
    if (this.topic.replay) this.offResume = this.events.onResume(() => this.resyncAll());
    // The first next() registers with the bus synchronously, before any subscriber reads its cursor.
    // Events are taken from the bus as they come and handled in batches: the ones that arrived while the
    // previous batch was being read go together, so a busy instance reads once for many events.
    void (async () => {
      for (;;) {
        const next = await source.next();
        if (next.done) return;
        this.pending.push(next.value);
        if (!this.draining) void this.drain();
      }
    })();
  }

  /** Handles the waiting events, batch after batch, until none waits (one drain runs at a time). */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, BATCH_MAX);
        try {
          await this.dispatch(batch);
        } catch (err) {
          console.error(`${this.topic.name} live delivery failed; subscribers re-read from their cursors`, err);
          this.resyncAll();
        }
      }
    } finally {
      // In the same turn as the last look at `pending`: an event pushed after it starts a new drain.
      this.draining = false;
    }
  }

  private stop(): void {
    const source = this.source;
    this.source = null;
    this.offResume?.();
    this.offResume = null;
    void source?.return?.();
  }

  private resyncAll(): void {
    for (const entry of this.listeners.values()) for (const listener of entry.listeners) listener.feed.resync();
  }

  /** The receivers of this instance an event concerns, with their listeners; null: none. */
  private listeningTo(event: EventTopics[K]): ReadonlyMap<string, Receiver<T>> | null {
    if (!this.topic.receiversOf) return this.listeners;
    const receivers = this.topic.receiversOf(event, this.listeners);
    const listening = new Map(receivers.flatMap((r) => (this.listeners.has(r) ? [[r, this.listeners.get(r)!] as const] : [])));
    return listening.size > 0 ? listening : null;
  }

  private async dispatch(events: Array<EventTopics[K]>): Promise<void> {
    if (this.listeners.size === 0) return;
    const batch: Array<Pending<K, Receiver<T>>> = [];
    for (const event of events) {
      const listening = this.listeningTo(event);
      if (listening) batch.push({ event, listening });
    }
    if (batch.length === 0) return;
    // The items and the tokens, at once. Every listening receiver's token is checked, whether an item comes
    // for it or not (the items are not known yet): only the tokens not known valid are read (LiveTokens).
    // One that started listening meanwhile was not checked: a durable one re-reads from its cursor instead
    // (which checks its token); another one started after the event and does not get it.
    const serial = ++this.serial;
    const now = Date.now();
    const unknown = new Set<string>();
    for (const { listening } of batch)
      for (const entry of listening.values())
        for (const listener of entry.listeners) {
          listener.checkedIn = serial;
          if (listener.tokenHash !== null && !this.tokens.knownValid(listener, now)) unknown.add(listener.tokenHash);
        }
    const [itemsPerEvent, revoked] = await Promise.all([
      this.topic.readBatch && batch.length > 1
        ? this.topic.readBatch(this.em, batch)
        : Promise.all(batch.map(({ event, listening }) => this.topic.read(this.em, event, listening))),
      unknown.size ? this.tokens.revoked(this.em, [...unknown]) : NO_TOKENS,
    ]);
    // Direct writes are synchronous work: yield to the event loop every few ms (fanout.ts), so an event to
    // any number of listeners never holds other requests up for longer. Events go out in their order.
    const clock = new SliceClock();
    for (const items of itemsPerEvent)
      for (const [found, item] of items) {
        if (clock.due()) {
          await yieldToLoop();
          clock.restart();
        }
        // Its last subscription left during the read: any new one has a new entry.
        const entry = found.gone ? this.listeners.get(found.id) : found;
        if (!entry) continue;
        for (const listener of entry.listeners) {
          if (listener.checkedIn !== serial) {
            if (this.topic.replay) listener.feed.resync();
          } else if (revoked.size > 0 && listener.tokenHash !== null && revoked.has(listener.tokenHash)) listener.feed.revoke();
          else listener.feed.push(item, true);
        }
      }
  }
}

const hubs = new WeakMap<EventBus, Map<string, unknown>>();

function hubFor<K extends Topic, T>(ctx: RequestContext, topic: DurableTopic<K, T>): DurableHub<K, T> {
  let byName = hubs.get(ctx.events);
  if (!byName) hubs.set(ctx.events, (byName = new Map()));
  let hub = byName.get(topic.name) as DurableHub<K, T> | undefined;
  if (!hub) byName.set(topic.name, (hub = new DurableHub(topic, ctx.em.fork() as EntityManager, ctx.events, liveTokens(ctx))));
  return hub;
}

/**
 * The receiver's items of `topic` as a gapless live stream, from after `after` (null: from the newest item
 * that exists when it starts). Listening and positioned before it returns: an item committed from then on
 * reaches it. `info` picks the direct path's encoder for this selection, when the topic has one.
 */
export async function durableStream<K extends Topic, T>(
  ctx: RequestContext,
  topic: DurableTopic<K, T>,
  receiver: string,
  after: string | null,
  info?: GraphQLResolveInfo,
): Promise<AsyncIterableIterator<T | StreamEnd>> {
  const feed = new LiveFeed<T>(ctx, topic, receiver, after, info && topic.frames ? topic.frames(info) : null);
  feed.onClose = hubFor(ctx, topic).listen(receiver, ctx.tokenHash ?? null, feed);
  await feed.position();
  return feed;
}
