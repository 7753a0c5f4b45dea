import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../platform/database';
import type { RequestContext, Viewer } from '../platform/context';
import { unauthenticated } from '../platform/errors';
import type { EventBus, EventTopics } from '../platform/events';
import { SliceClock, yieldToLoop } from '../platform/fanout';
import { StreamEnd, connectionStillAuthorized, stillValidTokens } from '../platform/live';
import { startEvent } from '../platform/request-context';
import type { InboxEventEncoder } from './inbox-direct';
import { broadcastColumns, deliveriesAfter, latestDeliveryId, sourceColumns, sourceOf, toBroadcastRecord, toDate, type InboxItem } from './inbox.service';

/**
 * What the hub tells one live subscriber: a delivery, "your token no longer works", or "events were lost:
 * re-read your inbox from your cursor".
 */
export type InboxSignal = { kind: 'delivery'; item: InboxItem } | { kind: 'revoked' } | { kind: 'resync' };

interface Listener {
  tokenHash: string | null;
  deliver: (signal: InboxSignal) => void;
}

/** Inbox rows replayed per statement. */
const REPLAY_PAGE = 200;

/**
 * When at least 1 in this many of a broadcast's recipients listen here, the hub reads all of its rows (one
 * range of the (broadcast, recipient) index) and skips the others itself, instead of looking each listener
 * up: 2,000 lookups with a 74 KB array parameter took PostgreSQL 4-5 ms, the range under 1 ms.
 */
const WHOLE_BROADCAST_SHARE = 4;

/** Whether the hub reads all of a broadcast's rows rather than those of its `listening` recipients. */
export function readsWholeBroadcast(recipientCount: number | undefined, listening: number): boolean {
  return recipientCount !== undefined && recipientCount <= WHOLE_BROADCAST_SHARE * listening;
}

interface DeliveryRow {
  seq: string;
  recipient_id: string;
  read_at: string | null;
}

/**
 * The live side of inboxes for one server instance: it listens to `inbox.delivered` (one notification
 * per broadcast, sent on commit) while anyone is subscribed here, and for each one reads the broadcast,
 * the rows of the recipients connected to this instance (all of the broadcast's rows when most of its
 * recipients are: `readsWholeBroadcast`) and whether their tokens still work: three statements however
 * many they are. It maps the source blueprint once for all of them.
 * Events are handled one at a time, in the order PostgreSQL delivered them (commit order).
 */
class InboxHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private count = 0;
  private source: AsyncIterator<EventTopics['inbox.delivered']> | null = null;
  private offResume: (() => void) | null = null;

  constructor(
    private readonly em: EntityManager,
    private readonly events: EventBus,
  ) {}

  /** Starts passing this recipient's deliveries to `deliver` at once; returns the function that stops it. */
  listen(recipientId: string, tokenHash: string | null, deliver: (signal: InboxSignal) => void): () => void {
    let set = this.listeners.get(recipientId);
    if (!set) this.listeners.set(recipientId, (set = new Set()));
    const listener: Listener = { tokenHash, deliver };
    set.add(listener);
    this.count += 1;
    if (!this.source) this.start();
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(recipientId) === set) this.listeners.delete(recipientId);
      this.count -= 1;
      if (this.count === 0) this.stop();
    };
  }

  private start(): void {
    const source = this.events.subscribe('inbox.delivered')[Symbol.asyncIterator]();
    this.source = source;
    this.offResume = this.events.onResume(() => this.resyncAll());
    // The first next() registers with the bus synchronously, before any subscriber reads its cursor.
    void (async () => {
      for (;;) {
        const next = await source.next();
        if (next.done) return;
        try {
          await this.dispatch(next.value);
        } catch (err) {
          console.error('inbox live delivery failed; subscribers re-read their inboxes', err);
          this.resyncAll();
        }
      }
    })();
  }

  private stop(): void {
    const source = this.source;
    this.source = null;
    this.offResume?.();
    this.offResume = null;
    void source?.return?.();
  }

  private resyncAll(): void {
    for (const set of this.listeners.values()) for (const listener of set) listener.deliver({ kind: 'resync' });
  }

  private async dispatch({ broadcastId, recipientCount }: EventTopics['inbox.delivered']): Promise<void> {
    if (this.listeners.size === 0) return;
    // The broadcast, the rows of the recipients connected here and their tokens: three statements at once.
    // Every listener's token is checked, receiver or not (the rows are not known yet); one that started
    // listening meanwhile has no answer and re-reads from its cursor instead (which checks its token).
    const checked = new Set<string>();
    for (const set of this.listeners.values()) for (const listener of set) if (listener.tokenHash) checked.add(listener.tokenHash);
    // Prepared, with the recipient list as one array parameter: MikroORM's `execute` would inline 2,000
    // quoted uuids into the text, and PostgreSQL would parse and plan that text anew for every event.
    const [found, rows, valid] = await Promise.all([
      executePrepared<Record<string, unknown>>(
        this.em,
        'inbox_live_broadcast',
        `select ${broadcastColumns}, ${sourceColumns} from broadcast b left join blueprint s on s.id = b.source_blueprint_id where b.id = ?`,
        [broadcastId],
      ),
      readsWholeBroadcast(recipientCount, this.listeners.size)
        ? executePrepared<DeliveryRow>(this.em, 'inbox_live_all_rows', 'select seq, recipient_id, read_at from inbox_delivery where broadcast_id = ?', [
            broadcastId,
          ])
        : executePrepared<DeliveryRow>(
            this.em,
            'inbox_live_rows',
            'select seq, recipient_id, read_at from inbox_delivery where broadcast_id = ? and recipient_id = any(?::uuid[])',
            [broadcastId, `{${[...this.listeners.keys()].join(',')}}`],
          ),
      checked.size ? stillValidTokens({ events: this.events, em: this.em }, [...checked]) : new Set<string>(),
    ]);
    if (!found[0]) return;
    const broadcast = toBroadcastRecord(found[0]);
    // Mapped once for every local subscriber (read-only).
    const source = sourceOf(found[0]);
    // Deliveries written straight to sockets are synchronous work: yield to the event loop every few ms
    // (fanout.ts), so a broadcast to any number of listeners never holds other requests up for longer.
    const clock = new SliceClock();
    for (const row of rows) {
      if (clock.due()) {
        await yieldToLoop();
        clock.restart();
      }
      const set = this.listeners.get(row.recipient_id);
      if (!set) continue;
      let item: InboxItem | null = null;
      for (const listener of set) {
        if (listener.tokenHash && !checked.has(listener.tokenHash)) listener.deliver({ kind: 'resync' });
        else if (listener.tokenHash && !valid.has(listener.tokenHash)) listener.deliver({ kind: 'revoked' });
        else
          listener.deliver({
            kind: 'delivery',
            item: (item ??= { id: String(row.seq), readAt: row.read_at === null ? null : toDate(row.read_at), broadcast, source }),
          });
      }
    }
  }
}

const hubs = new WeakMap<EventBus, InboxHub>();

function hubFor(ctx: RequestContext): InboxHub {
  let hub = hubs.get(ctx.events);
  if (!hub) hubs.set(ctx.events, (hub = new InboxHub(ctx.em.fork() as EntityManager, ctx.events)));
  return hub;
}

/**
 * The viewer's deliveries as a gapless live stream. It starts listening BEFORE it reads anything, then
 * replays the rows after `after` (all of them, page by page) and continues live, dropping what it has
 * already sent (by delivery id): no duplicates, no gaps. Without `after` it starts at the newest
 * delivery that exists when it starts. Whenever events may have been lost (the backplane connection
 * dropped, a read failed, the client fell `liveQueueMax` behind) it re-reads from its cursor. Every
 * delivery comes after a check of the connection's token; once revoked or expired, the stream ends.
 *
 * One object per subscriber, pulled by graphql-ws: a subscription to 2,000 sockets is 2,000 of these, not
 * 2,000 chains of generic async iterators (memory and promises per event are what a fan-out costs).
 */
export async function inboxStream(
  ctx: RequestContext,
  viewer: Viewer,
  after: string | null,
  encoder: InboxEventEncoder | null = null,
): Promise<AsyncIterableIterator<InboxItem | StreamEnd>> {
  const feed = new InboxFeed(ctx, viewer.principalId, after, encoder);
  // Listening and positioned before the subscription counts as started: a delivery committed from then on
  // reaches it, whether or not the client gave a cursor.
  await feed.position();
  return feed;
}

const done: IteratorReturnResult<undefined> = { done: true, value: undefined };

class InboxFeed implements AsyncIterableIterator<InboxItem | StreamEnd> {
  private signals: InboxSignal[] = [];
  private overflowed = false;
  private wake: (() => void) | null = null;
  private closed = false;
  /** The id of the last delivery sent; null until the starting point is read. */
  private last: bigint | null = null;
  private reread: boolean;
  /** Replayed rows not sent yet. */
  private replayed: InboxItem[] = [];
  private readonly unlisten: () => void;

  constructor(
    private readonly ctx: RequestContext,
    private readonly recipientId: string,
    private readonly after: string | null,
    /** For live deliveries of a plain selection: written straight to the socket (see `writeDirectly`). */
    private readonly encoder: InboxEventEncoder | null,
  ) {
    this.reread = after !== null;
    this.unlisten = hubFor(ctx).listen(recipientId, ctx.tokenHash ?? null, (signal) => this.signal(signal));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Reads the starting point (the newest delivery, without a cursor); on failure it stops listening. */
  async position(): Promise<void> {
    try {
      this.last ??= BigInt(this.after ?? (await latestDeliveryId(this.ctx, this.recipientId)));
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private signal(signal: InboxSignal): void {
    if (this.closed) return;
    if (signal.kind === 'delivery' && this.writeDirectly(signal.item)) return;
    if (this.signals.length >= this.ctx.config.limits.liveQueueMax) {
      this.signals = [];
      this.overflowed = true;
    } else this.signals.push(signal);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * The fast path of a live delivery, inside the hub's loop over receivers: the payload is encoded from the
   * event and written to the socket at once, without waking the iterator that graphql-ws is waiting on (no
   * promise, no execution per receiver). Only while the stream is idle (parked waiting for the hub, nothing
   * queued, replaying or re-reading), so deliveries still leave in order; otherwise, or when the selection
   * or the event needs the resolvers, it returns false and the delivery is queued for the normal path.
   */
  private writeDirectly(item: InboxItem): boolean {
    const writer = this.ctx.liveWriter;
    if (!this.encoder || !writer || !this.wake || this.last === null || this.signals.length > 0 || this.replayed.length > 0 || this.reread || this.overflowed)
      return false;
    const id = BigInt(item.id);
    if (id <= this.last) return true; // already sent
    const payload = this.encoder.encode(item);
    if (payload === null || !writer.next(payload)) return false;
    this.last = id;
    return true;
  }

  // One async frame per idle subscriber (it waits here for the hub): no wrapper around an inner loop.
  async next(): Promise<IteratorResult<InboxItem | StreamEnd, undefined>> {
    try {
      // Set by position() already when the stream was opened through inboxStream.
      this.last ??= BigInt(this.after ?? (await latestDeliveryId(this.ctx, this.recipientId)));
      for (;;) {
        if (this.closed) return done;
        const replayed = this.replayed.shift();
        if (replayed) return this.send(replayed);
        if (this.overflowed) {
          // After a gap, the re-read covers every dropped delivery and everything up to now, in order.
          this.overflowed = false;
          this.reread = true;
        }
        if (this.reread) {
          this.reread = false;
          if (!(await connectionStillAuthorized(this.ctx))) return this.end();
          this.replayed = await deliveriesAfter(this.ctx, this.recipientId, this.last.toString(), REPLAY_PAGE);
          startEvent(this.ctx); // nothing the read loaded is kept while the subscriber waits
          if (this.replayed.length === REPLAY_PAGE) this.reread = true;
          continue;
        }
        const signal = this.signals.shift();
        if (!signal) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (signal.kind === 'resync') this.reread = true;
        else if (signal.kind === 'revoked') return this.end();
        else if (BigInt(signal.item.id) > this.last) return this.send(signal.item);
      }
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private send(item: InboxItem): IteratorYieldResult<InboxItem> {
    this.last = BigInt(item.id);
    return { done: false, value: item };
  }

  /** The last value: the reason the stream stops (the field resolver throws it to the client). */
  private end(): IteratorResult<StreamEnd, undefined> {
    this.close();
    return { done: false, value: new StreamEnd(unauthenticated('The bearer token is unknown, expired or revoked')) };
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    this.close();
    return done;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.signals = [];
    this.unlisten();
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
