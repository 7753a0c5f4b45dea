import type { EntityManager } from '@mikro-orm/postgresql';
import { Visibility } from '../blueprints/blueprint.entity';
import type { RequestContext, Viewer } from '../platform/context';
import { executePrepared } from '../platform/sql/database';
import { durableStream, type DurableTopic } from '../platform/live/durable-live';
import type { StreamEnd } from '../platform/live/live';
import { inboxEncoderFor } from './inbox-direct';
import { broadcastColumns, deliveriesAfter, latestDeliveryId, sourceColumns, sourceOf, toBroadcastRecord, toDate, type InboxItem } from './inbox.service';

/**
 * The live side of inboxes: the durable topic `inbox.delivered` (one event per broadcast, sent on commit)
 * as the platform's live engine (`platform/live/durable-live.ts`) reads it. Per event, one read of the
 * broadcast with its source blueprint and the delivery rows of the recipients connected to this instance
 * (all of the broadcast's rows when most of its recipients are: `readsWholeBroadcast`); the source is
 * mapped once for all of them.
 */

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
 * What a broadcast's own write answered, kept on the instance that wrote it until the broadcast's event
 * arrives there: the broadcast with its source (`broadcastColumns`, `sourceColumns`) and every delivery row
 * (`freshDeliveriesSql`). That instance's hub then delivers from it instead of reading the same rows back
 * (one round trip less, and at 10,000 recipients 10,000 rows less to parse); other instances read the
 * database as before. Only the event of that broadcast looks an entry up, and the event exists only when
 * the write committed, so an entry of a write that rolled back is never used. A fresh delivery is unread:
 * its `readAt` is null, as the row was at commit (a read moments later may find it already marked read;
 * either answer is true of its moment). Entries nobody takes (no subscriber here) leave after
 * `FRESH_TTL_MS`, and at most `FRESH_MAX` wait.
 */
interface FreshBroadcast {
  row: Record<string, unknown>;
  at: number;
}
const fresh = new Map<string, FreshBroadcast>();
const FRESH_TTL_MS = 10_000;
const FRESH_MAX = 64;

/** The delivery rows of the CTE `alias` (columns `seq`, `recipient_id`) as one text: `<uuid> <seq>,...`. */
export function freshDeliveriesSql(alias: string): string {
  return `string_agg(${alias}.recipient_id::text || ' ' || ${alias}.seq::text, ',')`;
}

/** Keeps a broadcast's write answer (a row with the broadcast, its source and `deliveries`) for this instance's hub. */
export function rememberFreshBroadcast(row: Record<string, unknown>): void {
  const now = Date.now();
  for (const [id, entry] of fresh) if (fresh.size >= FRESH_MAX || now - entry.at > FRESH_TTL_MS) fresh.delete(id);
  fresh.set(row.id as string, { row, at: now });
}

/** The delivery rows of a kept write answer (`<uuid> <seq>,...`; a uuid's text is 36 characters). */
function freshRows(deliveries: string): DeliveryRow[] {
  const rows: DeliveryRow[] = [];
  for (const part of deliveries.split(',')) rows.push({ recipient_id: part.slice(0, 36), seq: part.slice(37), read_at: null });
  return rows;
}

/** How many events this process's hubs delivered from their own write's answer (tests). */
let freshUsed = 0;
export function freshBroadcastsUsed(): number {
  return freshUsed;
}

/** The items of one broadcast (`row`: its columns and its source's) for the receivers in `listening`, with their entries. */
function itemsOf<V>(row: Record<string, unknown>, rows: DeliveryRow[], listening: ReadonlyMap<string, V>): Array<[V, InboxItem]> {
  const broadcast = toBroadcastRecord(row);
  const source = sourceOf(row);
  const items: Array<[V, InboxItem]> = [];
  for (const delivery of rows) {
    const entry = listening.get(delivery.recipient_id);
    if (entry !== undefined)
      items.push([entry, { id: String(delivery.seq), readAt: delivery.read_at === null ? null : toDate(delivery.read_at), broadcast, source }]);
  }
  return items;
}

export const inboxLive: DurableTopic<'inbox.delivered', InboxItem> = {
  name: 'inbox',
  topic: 'inbox.delivered',

  // Prepared, with the recipient list as one array parameter: MikroORM's `execute` would inline 2,000
  // quoted uuids into the text, and PostgreSQL would parse and plan that text anew for every event.
  async read(em: EntityManager, { broadcastId, recipientCount }, listening) {
    const kept = fresh.get(broadcastId);
    if (kept) {
      fresh.delete(broadcastId);
      freshUsed += 1;
      return itemsOf(kept.row, freshRows(kept.row.deliveries as string), listening);
    }
    const [found, rows] = await Promise.all([
      executePrepared<Record<string, unknown>>(
        em,
        'inbox_live_broadcast',
        `select ${broadcastColumns}, ${sourceColumns} from broadcast b left join blueprint s on s.id = b.source_blueprint_id where b.id = ?`,
        [broadcastId],
      ),
      readsWholeBroadcast(recipientCount, listening.size)
        ? executePrepared<DeliveryRow>(em, 'inbox_live_all_rows', 'select seq, recipient_id, read_at from inbox_delivery where broadcast_id = ?', [broadcastId])
        : executePrepared<DeliveryRow>(
            em,
            'inbox_live_rows',
            'select seq, recipient_id, read_at from inbox_delivery where broadcast_id = ? and recipient_id = any(?::uuid[])',
            [broadcastId, `{${[...listening.keys()].join(',')}}`],
          ),
    ]);
    return found[0] ? itemsOf(found[0], rows, listening) : [];
  },

  replay: {
    cursorOf: (item) => BigInt(item.id),
    latest: latestDeliveryId,
    after: deliveriesAfter,
  },

  // Every recipient may see a delivery whose source is public or gone; for any other source, the
  // `sourceBlueprint` resolver decides per receiver (the normal path).
  visibleToAll: (item) => item.source === null || item.source?.visibility === Visibility.PUBLIC,

  frames: inboxEncoderFor,
};

/**
 * The viewer's deliveries as a gapless live stream: the items after `after` (the last delivery id the
 * client saw), then live ones; without `after`, from the newest delivery that exists when it starts.
 */
export function inboxStream(
  ctx: RequestContext,
  viewer: Viewer,
  after: string | null,
  info?: Parameters<typeof inboxEncoderFor>[0],
): Promise<AsyncIterableIterator<InboxItem | StreamEnd>> {
  return durableStream(ctx, inboxLive, viewer.principalId, after, info);
}
