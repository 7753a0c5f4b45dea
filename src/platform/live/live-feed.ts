import type { RequestContext } from '../context';
import { AppError, TOKEN_REFUSED, unauthenticated } from '../errors';
import { connectionStillAuthorized, StreamEnd, type EventSight } from './live';
import type { LiveWriter } from '../context';
import { startEvent } from '../http/request-context';

/**
 * One live subscriber: the async iterator graphql-ws pulls, fed by whoever listens for its events (a
 * `DurableLive` hub, or `liveStream`'s pump of a bus topic). Every live stream of the server is one of
 * these; what differs is told by `FeedRules`:
 * - durable streams (`replay` given) have a per-receiver cursor: they replay the items after it, drop what
 *   they already sent, and re-read from it whenever events may have been lost (a backplane gap, a client
 *   `liveQueueMax` behind); streams without durable rows end with CONFLICT after such a gap;
 * - per-receiver visibility: before an event goes out, `sight` decides what this receiver may see of it
 *   (unless `visibleToAll` says everyone may see all of it), and the connection's token is re-checked (the
 *   hub checks every receiver's token in one statement per event and says so);
 * - the direct path (`FrameEncoder`, the one hook for it): a visible-to-all event reaching an idle feed is
 *   encoded and written to the socket inside the deliverer's loop, without waking the iterator.
 */

/**
 * The operation's writer of `next` messages, which the platform's WebSocket server attaches to the
 * contexts of subscriptions (`OperationContext.liveWriter`); nothing outside the live engine reads it.
 */
export function liveWriterOf(ctx: RequestContext): LiveWriter | null {
  return (ctx as { liveWriter?: LiveWriter | null }).liveWriter ?? null;
}

/**
 * Encodes the `next` payload (`{"data":{...}}`) of one subscription selection straight from an event, or
 * answers null: run the document the normal way. It must answer exactly what execution answers (each area
 * that has one proves it in a test).
 */
export interface FrameEncoder<T> {
  encode(item: T): string | null;
}

/** How a durable stream re-reads its receiver's rows. Cursors are decimal integers, ordered per receiver. */
export interface DurableReader<T> {
  cursorOf(item: T): bigint;
  /** The newest cursor of the receiver ("0" when none): where a stream without `after` starts. */
  latest(ctx: RequestContext, receiver: string): Promise<string>;
  /** The receiver's items after `cursor`, oldest first, at most `limit`. */
  after(ctx: RequestContext, receiver: string, cursor: string, limit: number): Promise<T[]>;
}

export interface FeedRules<T> {
  /** Durable rows to replay and re-read; absent for streams of in-process events only. */
  replay?: DurableReader<T>;
  /** Whether every receiver may see all of this event (cheap, synchronous); then `sight` is skipped. */
  visibleToAll?: (item: T) => boolean;
  /** What one receiver may see of an event; absent: all of it (the resolvers apply their own checks). */
  sight?: (ctx: RequestContext, item: T) => Promise<T | AppError>;
}

/** Items replayed per statement. */
export const REPLAY_PAGE = 200;

const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
const REVOKED = 1;
const RESYNC = 2;
/** A queued event: the item, or (checked) the item after a token check done by the deliverer. */
type Queued<T> = { item: T; checked: boolean } | typeof REVOKED | typeof RESYNC;

export class LiveFeed<T> implements AsyncIterableIterator<T | StreamEnd> {
  private queue: Array<Queued<T>> = [];
  private overflowed = false;
  private wake: (() => void) | null = null;
  private closed = false;
  /** Durable streams: the cursor of the last item sent; null until the starting point is read. */
  private last: bigint | null = null;
  private reread: boolean;
  /** Replayed items not sent yet. */
  private replayed: T[] = [];
  /** Called once when the feed closes (stops listening). */
  onClose: (() => void) | null = null;

  constructor(
    private readonly ctx: RequestContext,
    private readonly rules: FeedRules<T>,
    /** Durable streams: whose rows, and the client's cursor (null: start at the newest). */
    private readonly receiver: string | null = null,
    private readonly after: string | null = null,
    /** The direct path: this subscription's encoder (null: every event runs the document). */
    private readonly frames: FrameEncoder<T> | null = null,
  ) {
    this.reread = after !== null;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Durable streams: reads the starting point (the newest item, without a cursor); on failure it closes. */
  async position(): Promise<void> {
    const replay = this.rules.replay;
    if (!replay) return;
    try {
      this.last ??= BigInt(this.after ?? (await replay.latest(this.ctx, this.receiver!)));
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** An event for this receiver; `checked`: the deliverer has just checked the connection's token. */
  push(item: T, checked = false): void {
    if (this.closed) return;
    if (checked && this.writeDirectly(item)) return;
    this.enqueue({ item, checked });
  }

  /** The connection's token no longer works: the stream ends with UNAUTHENTICATED. */
  revoke(): void {
    if (!this.closed) this.enqueue(REVOKED);
  }

  /** Events may have been lost: a durable stream re-reads from its cursor, another ends with CONFLICT. */
  resync(): void {
    if (!this.closed) this.enqueue(RESYNC);
  }

  private enqueue(entry: Queued<T>): void {
    if (this.queue.length >= this.ctx.config.limits.liveQueueMax) {
      this.queue = [];
      this.overflowed = true;
    } else this.queue.push(entry);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * The direct path: only while the stream is idle (parked waiting, nothing queued, replaying or
   * re-reading), so deliveries still leave in order, and only for an event every receiver may see.
   */
  private writeDirectly(item: T): boolean {
    const frames = this.frames;
    if (!frames || !this.wake || this.queue.length > 0 || this.overflowed) return false;
    const replay = this.rules.replay;
    if (replay && (this.last === null || this.replayed.length > 0 || this.reread)) return false;
    if (!(this.rules.visibleToAll?.(item) ?? !this.rules.sight)) return false;
    const writer = liveWriterOf(this.ctx);
    if (!writer) return false;
    const cursor = replay ? replay.cursorOf(item) : null;
    if (cursor !== null && cursor <= this.last!) return true; // already sent
    const payload = frames.encode(item);
    if (payload === null || !writer.next(payload)) return false;
    if (cursor !== null) this.last = cursor;
    return true;
  }

  // One async frame per idle subscriber (it waits here): no wrapper around an inner loop.
  async next(): Promise<IteratorResult<T | StreamEnd, undefined>> {
    try {
      const replay = this.rules.replay;
      if (replay) this.last ??= BigInt(this.after ?? (await replay.latest(this.ctx, this.receiver!)));
      for (;;) {
        if (this.closed) return done;
        if (this.replayed.length > 0) return this.send(this.replayed.shift()!);
        if (this.overflowed) {
          this.overflowed = false;
          // After a gap, a durable re-read covers every dropped event and everything up to now, in order.
          if (!replay) return this.end(new AppError('CONFLICT', 'The subscriber fell too far behind; subscribe again'));
          this.reread = true;
        }
        if (this.reread && replay) {
          this.reread = false;
          if (!(await connectionStillAuthorized(this.ctx))) return this.end(revoked());
          this.replayed = await replay.after(this.ctx, this.receiver!, this.last!.toString(), REPLAY_PAGE);
          startEvent(this.ctx); // nothing the read loaded is kept while the subscriber waits
          if (this.replayed.length === REPLAY_PAGE) this.reread = true;
          continue;
        }
        const entry = this.queue.shift();
        if (entry === undefined) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (entry === RESYNC) {
          if (!replay) return this.end(new AppError('CONFLICT', 'Events may have been lost; subscribe again'));
          this.reread = true;
          continue;
        }
        if (entry === REVOKED) return this.end(revoked());
        if (replay && replay.cursorOf(entry.item) <= this.last!) continue; // already sent
        if (!entry.checked && !(await connectionStillAuthorized(this.ctx))) return this.end(revoked());
        const seen = await this.sightOf(entry.item);
        if (seen instanceof AppError) return this.end(seen);
        return this.send(seen);
      }
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private sightOf(item: T): T | Promise<T | AppError> {
    const sight = this.rules.sight;
    if (!sight || this.rules.visibleToAll?.(item)) return item;
    return sight(this.ctx, item);
  }

  private send(item: T): IteratorYieldResult<T> {
    if (this.rules.replay) this.last = this.rules.replay.cursorOf(item);
    return { done: false, value: item };
  }

  /** The last value: the reason the stream stops (the field resolver throws it to the client). */
  private end(error: AppError): IteratorResult<StreamEnd, undefined> {
    this.close();
    return { done: false, value: new StreamEnd(error) };
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    this.close();
    return done;
  }

  async throw(error?: unknown): Promise<IteratorReturnResult<undefined>> {
    this.close();
    throw error;
  }

  /** Stops listening; a waiting `next` answers done. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.replayed = [];
    const onClose = this.onClose;
    this.onClose = null;
    onClose?.();
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

function revoked(): AppError {
  return unauthenticated(TOKEN_REFUSED);
}

/**
 * A live stream of the in-process events of `source` that `matches` keeps (a cheap, synchronous filter) for
 * one subscription. Before each kept event the connection's token is re-checked (revoked or expired: the
 * stream ends with UNAUTHENTICATED), then `sight` decides what of the event this receiver may see (see
 * `EventSight`). The source is drained into the feed's bounded queue at once, so a slow client never holds
 * up the event bus; one that falls `liveQueueMax` events behind is ended with CONFLICT (there are no durable
 * rows to re-read). Unsubscribing releases the source immediately, even when no event ever comes.
 */
export function liveStream<T>(
  ctx: RequestContext,
  source: AsyncIterable<T>,
  matches: (event: T) => boolean,
  sight: EventSight<T>,
): AsyncIterableIterator<T | StreamEnd> {
  const feed = new LiveFeed<T>(ctx, { sight: (_ctx, event) => sight(event) });
  const iterator = source[Symbol.asyncIterator]();
  feed.onClose = () => void iterator.return?.();
  void (async () => {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (matches(next.value)) feed.push(next.value);
    }
    feed.close();
  })().catch(() => feed.close());
  return feed;
}
