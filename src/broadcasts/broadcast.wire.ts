import type { RequestContext } from '../platform/context';
import { setSubscription } from './broadcast.service';
import { listInbox, type BroadcastRecord, type InboxItem } from './inbox.service';

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

/** `GET /api/inbox` (REST and MCP): the caller's deliveries, newest first. */
export async function inboxPageBody(ctx: RequestContext, query: { unread?: unknown; limit?: unknown; offset?: unknown }) {
  const page = await listInbox(ctx, query);
  return { items: page.items.map(toInboxBody), total: page.total, limit: page.limit, offset: page.offset };
}

/** `POST` / `DELETE /api/blueprints/:id/subscription` (REST and MCP). */
export async function subscriptionBody(ctx: RequestContext, idOrSlug: string, on: boolean) {
  const state = await setSubscription(ctx, idOrSlug, on);
  return { blueprint_id: state.blueprintId, subscribed: state.subscribed };
}
