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

export const inboxLive: DurableTopic<'inbox.delivered', InboxItem> = {
  name: 'inbox',
  topic: 'inbox.delivered',

  // Prepared, with the recipient list as one array parameter: MikroORM's `execute` would inline 2,000
  // quoted uuids into the text, and PostgreSQL would parse and plan that text anew for every event.
  async read(em: EntityManager, { broadcastId, recipientCount }, listening) {
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
    if (!found[0]) return [];
    const broadcast = toBroadcastRecord(found[0]);
    const source = sourceOf(found[0]);
    const items: Array<[string, InboxItem]> = [];
    for (const row of rows)
      if (listening.has(row.recipient_id))
        items.push([row.recipient_id, { id: String(row.seq), readAt: row.read_at === null ? null : toDate(row.read_at), broadcast, source }]);
    return items;
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
