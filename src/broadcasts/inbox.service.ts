import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { fullProjection } from '../blueprints/blueprint.projection';
import type { RequestContext } from '../platform/context';
import { invalid, notFound } from '../platform/errors';
import { pageFromQuery, type Page } from '../platform/pagination';
import type { BroadcastSeverity, BroadcastType } from './broadcast.entity';

/** A broadcast as read from SQL (the same shape for the sender, the inbox and live events). */
export interface BroadcastRecord {
  id: string;
  sourceBlueprintId: string | null;
  senderId: string;
  message: string;
  type: BroadcastType;
  severity: BroadcastSeverity;
  recipientCount: number;
  createdAt: Date;
}

/**
 * One recipient's delivery. `id` is the delivery's `seq` as a decimal string: ordered per recipient, it
 * is both the inbox id and the live cursor. `source` is the source blueprint when it was read along
 * (live events and replays; null: it is gone), so a subscriber resolves it without another query.
 */
export interface InboxItem {
  id: string;
  readAt: Date | null;
  broadcast: BroadcastRecord;
  source?: BlueprintView | null;
}

export const broadcastColumns = 'b.id, b.source_blueprint_id, b.sender_id, b.message, b.type, b.severity, b.recipient_count, b.created_at';
/** The source blueprint's columns, prefixed so they do not clash with the broadcast's. */
export const sourceColumns = fullProjection.sql('s', 'src_');

/** Raw rows carry timestamps as the driver's strings; the ORM converts only what it maps. */
export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}

export function toBroadcastRecord(row: Record<string, unknown>): BroadcastRecord {
  return {
    id: row.id as string,
    sourceBlueprintId: (row.source_blueprint_id as string | null) ?? null,
    senderId: row.sender_id as string,
    message: row.message as string,
    type: row.type as BroadcastType,
    severity: row.severity as BroadcastSeverity,
    recipientCount: Number(row.recipient_count),
    createdAt: toDate(row.created_at),
  };
}

/** The source blueprint inside a row selected with `sourceColumns` (a plain row, not an entity); null when it is gone. */
export function sourceOf(row: Record<string, unknown>): BlueprintView | null {
  if (row.src_id === null || row.src_id === undefined) return null;
  return fullProjection.map(row, 'src_');
}

/** An inbox item from a row with `seq`, `read_at` and the broadcast columns (and the source's, given `em`). */
function toInboxItem(row: Record<string, unknown>, em?: EntityManager): InboxItem {
  return {
    id: String(row.seq),
    readAt: row.read_at === null || row.read_at === undefined ? null : toDate(row.read_at),
    broadcast: toBroadcastRecord(row),
    ...(em ? { source: sourceOf(row) } : {}),
  };
}

const MAX_SEQ = 9223372036854775807n;

/** A delivery id (or cursor) as given by a client: a positive decimal integer; anything else is null. */
export function parseDeliveryId(raw: unknown): string | null {
  if (typeof raw !== 'string' || !/^\d{1,19}$/.test(raw)) return null;
  const n = BigInt(raw);
  return n > MAX_SEQ ? null : n.toString();
}

function parseUnread(raw: unknown): boolean {
  if (raw === undefined || raw === null || raw === '' || raw === 'false' || raw === false) return false;
  if (raw === 'true' || raw === true) return true;
  throw invalid('unread', 'must be true or false');
}

/** The caller's inbox, newest first (`unread=true`: unread only), as a REST page. */
export async function listInbox(ctx: RequestContext, query: { unread?: unknown; limit?: unknown; offset?: unknown }): Promise<Page<InboxItem>> {
  const viewer = requireViewer(ctx);
  const unread = parseUnread(query.unread);
  const page = pageFromQuery(query, ctx.config.limits);
  const filter = unread ? 'and d.read_at is null' : '';
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select c.total, x.* from (select count(*) as total from inbox_delivery d where d.recipient_id = ? ${filter}) c
       left join lateral (select d.seq, d.read_at, ${broadcastColumns} from inbox_delivery d join broadcast b on b.id = d.broadcast_id
                           where d.recipient_id = ? ${filter} order by d.seq desc offset ? limit ?) x on true`,
    [viewer.principalId, viewer.principalId, page.offset, page.limit],
  );
  const total = Number(rows[0]?.total ?? 0);
  return { items: rows.filter((r) => r.seq !== null).map((r) => toInboxItem(r)), total, limit: page.limit, offset: page.offset };
}

export interface InboxSlice {
  items: InboxItem[];
  total: number;
  hasNextPage: boolean;
}

/**
 * The GraphQL inbox: newest first, keyset-paged by delivery id (`after` = the last id of the previous
 * page), so deliveries arriving meanwhile never shift a page.
 */
export async function inboxSlice(ctx: RequestContext, args: { first: number; after: string | null; unread: boolean }): Promise<InboxSlice> {
  const viewer = requireViewer(ctx);
  const filter = args.unread ? 'and d.read_at is null' : '';
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select c.total, x.* from (select count(*) as total from inbox_delivery d where d.recipient_id = ? ${filter}) c
       left join lateral (select d.seq, d.read_at, ${broadcastColumns} from inbox_delivery d join broadcast b on b.id = d.broadcast_id
                           where d.recipient_id = ? ${filter} and d.seq < ? order by d.seq desc limit ?) x on true`,
    [viewer.principalId, viewer.principalId, args.after ?? MAX_SEQ.toString(), args.first + 1],
  );
  const items = rows.filter((r) => r.seq !== null).map((r) => toInboxItem(r));
  return { items: items.slice(0, args.first), total: Number(rows[0]?.total ?? 0), hasNextPage: items.length > args.first };
}

/** Marks one of the caller's deliveries read (the first read time is kept); others' are 404. */
export async function markInboxRead(ctx: RequestContext, deliveryId: string): Promise<InboxItem> {
  const viewer = requireViewer(ctx);
  const seq = parseDeliveryId(deliveryId);
  if (seq === null) throw notFound('inbox item', deliveryId);
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `update inbox_delivery d set read_at = coalesce(d.read_at, now()) from broadcast b
      where d.seq = ? and d.recipient_id = ? and b.id = d.broadcast_id
      returning d.seq, d.read_at, ${broadcastColumns}`,
    [seq, viewer.principalId],
  );
  if (rows.length === 0) throw notFound('inbox item', deliveryId);
  return toInboxItem(rows[0]!);
}

/** Deliveries of `recipientId` after `afterSeq`, oldest first, with their source rows (replay). */
export async function deliveriesAfter(ctx: RequestContext, recipientId: string, afterSeq: string, limit: number): Promise<InboxItem[]> {
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select d.seq, d.read_at, ${broadcastColumns}, ${sourceColumns}
       from inbox_delivery d join broadcast b on b.id = d.broadcast_id left join blueprint s on s.id = b.source_blueprint_id
      where d.recipient_id = ? and d.seq > ? order by d.seq limit ?`,
    [recipientId, afterSeq, limit],
  );
  return rows.map((r) => toInboxItem(r, ctx.em));
}

/** The newest delivery id of `recipientId` ("0" when none): where a live-only subscription starts. */
export async function latestDeliveryId(ctx: RequestContext, recipientId: string): Promise<string> {
  const rows: Array<{ seq: string | null }> = await ctx.em.execute('select max(seq) as seq from inbox_delivery where recipient_id = ?', [recipientId]);
  return rows[0]?.seq === null || rows[0]?.seq === undefined ? '0' : String(rows[0].seq);
}
