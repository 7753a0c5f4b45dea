import type { BroadcastRecord, InboxItem } from './inbox.service';

/** The broadcast inside an inbox item (docs/api.md). */
export function toBroadcastBody(b: BroadcastRecord) {
  return {
    id: b.id,
    source_blueprint_id: b.sourceBlueprintId,
    message: b.message,
    type: b.type,
    severity: b.severity,
    created_at: b.createdAt.toISOString(),
  };
}

/** What the sender gets back: the broadcast and how many inboxes it reached. */
export function toSentBroadcastBody(b: BroadcastRecord) {
  return { ...toBroadcastBody(b), recipient_count: b.recipientCount };
}

/** An inbox item `{id, read_at, broadcast}` (docs/api.md). */
export function toInboxBody(item: InboxItem) {
  return { id: item.id, read_at: item.readAt ? item.readAt.toISOString() : null, broadcast: toBroadcastBody(item.broadcast) };
}
