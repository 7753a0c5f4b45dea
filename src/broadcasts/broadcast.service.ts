import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import { getBlueprint, getOwnedBlueprint } from '../blueprints/blueprint.service';
import { isUuid } from '../platform/sql/ids';
import { readableBySql } from '../blueprints/access';
import type { Limits } from '../platform/config';
import type { RequestContext } from '../platform/context';
import { assertValid, validatorFor } from '../platform/json-schema';
import { BroadcastSeverity, BroadcastType } from './broadcast.entity';
import { broadcastColumns, sourceColumns, toBroadcastRecord, type BroadcastRecord } from './inbox.service';
import { freshDeliveriesSql, rememberFreshBroadcast } from './inbox-live';
import { broadcastInput } from './broadcast.contract';

/**
 * One lock for every broadcast send (and for deleting principals: their trigger takes it before deleting
 * their inbox rows, see migration 20261124000200). Sends run one at a time, so delivery `seq` values are
 * handed out in commit order: a subscriber that has seen delivery N has seen every committed delivery
 * before it, and "after N" (reconnect, replay) never skips one that commits later. Sends are rare and each
 * is a single statement, so the lock costs little.
 */
export const BROADCAST_LOCK = 7_342_001;

export interface BroadcastInput {
  message: string;
  type: BroadcastType;
  severity: BroadcastSeverity;
}

const broadcastBody = (limits: Limits) => validatorFor(broadcastInput(limits));

/** `{message, type, severity}` from a request body; unknown enum values and fields are 400. */
export function parseBroadcastInput(input: unknown, limits: Limits): BroadcastInput {
  const body = assertValid<BroadcastInput>(broadcastBody(limits), input ?? null, '');
  return { ...body, message: body.message.trim() };
}

/**
 * Sends a broadcast about a blueprint the caller owns. Recipients: the owners of its direct forks and
 * its explicit subscribers, each once, never the sender, and only those who may read the blueprint now.
 * The broadcast and every inbox row are written by ONE set-based statement (CTE + INSERT ... SELECT), so
 * the statement count does not grow with the number of recipients; one outbox event per broadcast (not
 * per recipient) tells every server instance, after commit, to push the new rows to its live subscribers.
 * The statement also answers what those instances read for the event (the broadcast with its source and
 * the delivery rows), so this instance's live subscribers get it without reading it back (inbox-live.ts).
 */
export async function sendBroadcast(ctx: RequestContext, blueprintId: string, input: unknown): Promise<BroadcastRecord> {
  const bp = await getOwnedBlueprint(ctx, blueprintId, 'send broadcasts');
  const fields = parseBroadcastInput(input, ctx.config.limits);
  const viewer = requireViewer(ctx);
  return ctx.em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?)', [BROADCAST_LOCK]);
    const rows: Array<Record<string, unknown>> = await tx.execute(
      `with src as (select id, owner_id, team_id, visibility from blueprint where id = ?),
            recipients as (
              select r.principal_id
                from (select f.owner_id as principal_id from blueprint f where f.forked_from_id = ?
                      union
                      select s.principal_id from blueprint_subscription s where s.blueprint_id = ?) r
                cross join src
               where r.principal_id <> ?
                 and ${readableBySql('src', 'r.principal_id')}),
            b as (
              insert into broadcast (id, source_blueprint_id, sender_id, message, type, severity, recipient_count)
              select gen_random_uuid(), ?, ?, ?, ?, ?, (select count(*) from recipients)
              returning *),
            d as (
              insert into inbox_delivery (broadcast_id, recipient_id)
              select b.id, recipients.principal_id from b cross join recipients
              returning seq, recipient_id)
       select ${broadcastColumns}, ${sourceColumns}, (select ${freshDeliveriesSql('d')} from d) as deliveries
         from b left join blueprint s on s.id = b.source_blueprint_id`,
      [bp.id, bp.id, bp.id, viewer.principalId, bp.id, viewer.principalId, fields.message, fields.type, fields.severity],
    );
    const broadcast = toBroadcastRecord(rows[0]!);
    if (broadcast.recipientCount > 0) {
      await ctx.events.publish(tx, 'inbox.delivered', { broadcastId: broadcast.id, recipientCount: broadcast.recipientCount });
      rememberFreshBroadcast(rows[0]!);
    }
    return broadcast;
  });
}

/** Subscribes the caller to a readable blueprint's broadcasts (or unsubscribes); both are idempotent. */
export async function setSubscription(ctx: RequestContext, blueprintId: string, on: boolean): Promise<{ blueprintId: string; subscribed: boolean }> {
  const viewer = requireViewer(ctx);
  if (!on && isUuid(blueprintId)) {
    // Leaving works even after the blueprint went out of sight (e.g. turned private).
    const gone = await ctx.em.execute(
      'delete from blueprint_subscription where principal_id = ? and blueprint_id = ?',
      [viewer.principalId, blueprintId.toLowerCase()],
      'run',
    );
    if (((gone as { affectedRows?: number }).affectedRows ?? 0) > 0) {
      ctx.loaders.clear();
      return { blueprintId: blueprintId.toLowerCase(), subscribed: false };
    }
  }
  const bp = await getBlueprint(ctx, blueprintId);
  if (on)
    await ctx.em.execute('insert into blueprint_subscription (blueprint_id, principal_id) values (?, ?) on conflict do nothing', [bp.id, viewer.principalId]);
  else await ctx.em.execute('delete from blueprint_subscription where principal_id = ? and blueprint_id = ?', [viewer.principalId, bp.id]);
  ctx.loaders.clear();
  return { blueprintId: bp.id, subscribed: on };
}

/** Whether the caller subscribed to each blueprint, batched. */
export function viewerIsSubscribed(ctx: RequestContext, blueprintId: string): Promise<boolean> {
  const viewer = ctx.viewer;
  if (!viewer) return Promise.resolve(false);
  const loader = ctx.loaders.get(
    'broadcasts.subscribedByViewer',
    () =>
      new DataLoader<string, boolean>(async (ids) => {
        const rows: Array<{ blueprint_id: string }> = await ctx.em.execute(
          'select blueprint_id from blueprint_subscription where principal_id = ? and blueprint_id = any(?::uuid[])',
          [viewer.principalId, `{${ids.join(',')}}`],
        );
        const set = new Set(rows.map((r) => r.blueprint_id));
        return ids.map((id) => set.has(id));
      }),
  );
  return loader.load(blueprintId);
}

/**
 * A notice about `sourceBlueprintId` delivered to one person inside the caller's transaction `tx` (e.g. "your
 * proposal was merged"): a broadcast of type notice with one inbox row, written only when the recipient is
 * not the sender and may read the blueprint; the live inbox hears of it on commit. Takes the sends' lock, so
 * delivery order stays commit order. Returns whether a row was written.
 */
export async function deliverNotice(
  tx: EntityManager,
  ctx: RequestContext,
  notice: { sourceBlueprintId: string; senderId: string; recipientId: string; message: string },
): Promise<boolean> {
  if (notice.recipientId === notice.senderId) return false;
  await tx.execute('select pg_advisory_xact_lock(?)', [BROADCAST_LOCK]);
  const rows: Array<{ id: string }> = await tx.execute(
    `with src as (select id, owner_id, team_id, visibility from blueprint where id = ?),
          ok as (select 1 from src where ${readableBySql('src', '?::uuid')}),
          b as (
            insert into broadcast (id, source_blueprint_id, sender_id, message, type, severity, recipient_count)
            select gen_random_uuid(), ?, ?, ?, 'notice', 'info', 1 from ok
            returning id),
          d as (insert into inbox_delivery (broadcast_id, recipient_id) select b.id, ? from b returning seq)
     select b.id from b`,
    [
      notice.sourceBlueprintId,
      notice.recipientId,
      notice.recipientId,
      notice.sourceBlueprintId,
      notice.senderId,
      notice.message.slice(0, 2000),
      notice.recipientId,
    ],
  );
  if (!rows[0]) return false;
  await ctx.events.publish(tx, 'inbox.delivered', { broadcastId: rows[0].id, recipientCount: 1 });
  return true;
}
