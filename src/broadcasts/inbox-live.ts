import { Repeater } from '@graphql-yoga/subscription';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext, Viewer } from '../platform/context';
import { unauthenticated } from '../platform/errors';
import type { EventBus } from '../platform/events';
import { LiveQueue, StreamEnd, connectionStillAuthorized } from '../platform/live';
import { broadcastColumns, deliveriesAfter, latestDeliveryId, sourceColumns, sourceOf, toBroadcastRecord, toDate, type InboxItem } from './inbox.service';

/** A delivery for a live subscriber, or "events were lost: re-read your inbox from your cursor". */
export type InboxSignal = { kind: 'delivery'; item: InboxItem } | { kind: 'resync' };

/** Inbox rows replayed per statement. */
const REPLAY_PAGE = 200;

/**
 * The live side of inboxes for one server instance: it listens to `inbox.delivered` (one notification
 * per broadcast, sent on commit) while anyone is subscribed here, and for each one reads the broadcast
 * and the rows of the recipients connected to this instance, two statements however many they are,
 * and maps the source blueprint once for all of them.
 * Events are handled one at a time, in the order PostgreSQL delivered them (commit order).
 */
class InboxHub {
  private readonly listeners = new Map<string, Set<(signal: InboxSignal) => void>>();
  private count = 0;
  private source: AsyncIterator<{ broadcastId: string }> | null = null;
  private offResume: (() => void) | null = null;

  constructor(
    private readonly em: EntityManager,
    private readonly events: EventBus,
  ) {}

  /** Starts passing this recipient's deliveries to `deliver` at once; returns the function that stops it. */
  listen(recipientId: string, deliver: (signal: InboxSignal) => void): () => void {
    let set = this.listeners.get(recipientId);
    if (!set) this.listeners.set(recipientId, (set = new Set()));
    set.add(deliver);
    this.count += 1;
    if (!this.source) this.start();
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      set.delete(deliver);
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
          await this.dispatch(next.value.broadcastId);
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
    for (const set of this.listeners.values()) for (const deliver of set) deliver({ kind: 'resync' });
  }

  private async dispatch(broadcastId: string): Promise<void> {
    if (this.listeners.size === 0) return;
    const found: Array<Record<string, unknown>> = await this.em.execute(
      `select ${broadcastColumns}, ${sourceColumns} from broadcast b left join blueprint s on s.id = b.source_blueprint_id where b.id = ?`,
      [broadcastId],
    );
    if (!found[0]) return;
    const broadcast = toBroadcastRecord(found[0]);
    // Mapped once for every local subscriber (read-only), in a throwaway EntityManager.
    const source = sourceOf(found[0]);
    const recipients = [...this.listeners.keys()];
    const rows: Array<{ seq: string; recipient_id: string; read_at: string | null }> = await this.em.execute(
      'select seq, recipient_id, read_at from inbox_delivery where broadcast_id = ? and recipient_id = any(?::uuid[])',
      [broadcastId, `{${recipients.join(',')}}`],
    );
    for (const row of rows) {
      const item: InboxItem = { id: String(row.seq), readAt: row.read_at === null ? null : toDate(row.read_at), broadcast, source };
      for (const deliver of this.listeners.get(row.recipient_id) ?? []) deliver({ kind: 'delivery', item });
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
 * delivery that exists when it starts. Whenever events may have been lost (the LISTEN connection
 * dropped, a read failed, the client fell `liveQueueMax` behind) it re-reads from its cursor. Before
 * every delivery the connection's token is checked; once revoked or expired, the stream ends.
 */
export function inboxStream(ctx: RequestContext, viewer: Viewer, after: string | null): AsyncIterable<InboxItem | StreamEnd> {
  return new Repeater<InboxItem | StreamEnd>(async (push, stop) => {
    let stopped = false;
    const queue = new LiveQueue<InboxSignal>(ctx.config.limits.liveQueueMax);
    const unlisten = hubFor(ctx).listen(viewer.principalId, (signal) => queue.push(signal));
    void stop.then(() => {
      stopped = true;
      queue.close();
    });
    const revoked = () => new StreamEnd(unauthenticated('The bearer token is unknown, expired or revoked'));
    try {
      let last = BigInt(after ?? (await latestDeliveryId(ctx, viewer.principalId)));
      let reread = after !== null;
      while (!stopped) {
        if (reread) {
          reread = false;
          for (;;) {
            if (!(await connectionStillAuthorized(ctx))) return void (await push(revoked()));
            const page = await deliveriesAfter(ctx, viewer.principalId, last.toString(), REPLAY_PAGE);
            for (const item of page) {
              if (stopped) return;
              await push(item);
              last = BigInt(item.id);
            }
            if (page.length < REPLAY_PAGE || stopped) break;
          }
        }
        const batch = await queue.take();
        if (batch === null) break;
        if (queue.takeOverflow()) reread = true;
        for (const signal of batch) {
          if (signal.kind === 'resync') reread = true;
          // After a gap, the re-read covers this delivery and everything up to now, in order.
          if (reread || signal.kind !== 'delivery' || BigInt(signal.item.id) <= last) continue;
          if (!(await connectionStillAuthorized(ctx))) return void (await push(revoked()));
          await push(signal.item);
          last = BigInt(signal.item.id);
        }
      }
    } finally {
      unlisten();
      queue.close();
      stop();
    }
  });
}
