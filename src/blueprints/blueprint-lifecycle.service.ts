import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import type { RequestContext } from '../platform/context';
import { forbidden, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { actorOf, recordAudit } from '../teams/audit.service';
import { applyTransfer } from '../teams/transfer.service';
import { assertEditable, canDeleteWith, canReadWith, guardOf, viewerTeamRoles } from './access';
import { blueprintInputs } from './blueprint.contract';
import { blueprintDeleted, blueprintShownChanged } from './blueprint.hooks';
import { Visibility, type Blueprint } from './blueprint.entity';
import { blueprintLoaders } from './blueprint.loaders';
import { getBlueprint, normaliseTags } from './blueprint.service';

/** The fields `PATCH /api/blueprints/:id` may change; the slug never changes (links keep working). */
export interface BlueprintMetadata {
  name?: string;
  description?: string;
  tags?: string[];
  visibility?: Visibility;
}

const patchBody = compileSchema(blueprintInputs.update);

/** Parses a metadata patch (REST body or GraphQL input): 400 naming the offending field. */
export function parseBlueprintMetadata(body: unknown): BlueprintMetadata {
  const input = assertValid<BlueprintMetadata>(patchBody, structuredClone(body ?? {}), 'body');
  return { ...input, ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.tags ? { tags: normaliseTags(input.tags) } : {}) };
}

/** Each changed field as `{from, to}` (what an audit entry records). */
export type MetadataChanges = Partial<Record<keyof BlueprintMetadata, { from: unknown; to: unknown }>>;

/**
 * Applies a metadata patch inside the caller's transaction `tx` (row locked). Access is read afresh by
 * every list, lineage and architecture read, so a visibility change is seen everywhere at once; live
 * subscribers are told (a `blueprintActivity` EDITED event makes each re-check its access, and the areas
 * that show the blueprint hear of it through `blueprintShownChanged`).
 */
export async function updateBlueprintMetadata(tx: EntityManager, ctx: RequestContext, blueprintId: string, patch: BlueprintMetadata): Promise<MetadataChanges> {
  const viewer = requireViewer(ctx);
  const rows: Array<{ name: string; description: string; tags: string[]; visibility: Visibility; team_id: string | null; forked_from_id: string | null }> =
    await tx.execute('select name, description, tags, visibility, team_id, forked_from_id from blueprint where id = ? for update', [blueprintId]);
  const before = rows[0];
  if (!before) throw notFound('blueprint', blueprintId);
  const changes: MetadataChanges = {};
  for (const key of ['name', 'description', 'tags', 'visibility'] as const) {
    if (patch[key] !== undefined && JSON.stringify(patch[key]) !== JSON.stringify(before[key])) changes[key] = { from: before[key], to: patch[key] };
  }
  if (Object.keys(changes).length === 0) return changes;
  // Tags match ^[a-z0-9][a-z0-9-]*$ (blueprint.contract.ts), so the array literal needs no quoting.
  await tx.execute(
    `update blueprint set name = coalesce(?, name), description = coalesce(?, description), tags = coalesce(?::text[], tags),
            visibility = coalesce(?, visibility), updated_at = now() where id = ?`,
    [patch.name ?? null, patch.description ?? null, patch.tags ? `{${patch.tags.join(',')}}` : null, patch.visibility ?? null, blueprintId],
  );
  // The parent's forks_count counts public forks only: a fork going public or private moves it.
  if (changes.visibility && before.forked_from_id !== null)
    await tx.execute('update blueprint set forks_count = greatest(forks_count + ?, 0) where id = ?', [
      changes.visibility.to === Visibility.PUBLIC ? 1 : -1,
      before.forked_from_id,
    ]);
  await ctx.events.publish(tx, 'blueprint.activity', { blueprintId, kind: 'edited', subjectId: null, actorId: viewer.principalId });
  if (before.team_id !== null)
    await recordAudit(tx, {
      teamId: before.team_id,
      actor: actorOf(ctx),
      action: 'blueprint.edited',
      targetType: 'blueprint',
      targetId: blueprintId,
      details: { changes },
    });
  if (changes.visibility || changes.name) await blueprintShownChanged.fire(tx, ctx, { blueprintId, actorId: viewer.principalId });
  return changes;
}

/** `PATCH /api/blueprints/:id`: the owner or a team editor changes name, description, tags or visibility. */
export async function updateBlueprint(ctx: RequestContext, idOrSlug: string, body: unknown): Promise<Blueprint> {
  const bp = await getBlueprint(ctx, idOrSlug);
  await assertEditable(ctx, bp, idOrSlug);
  const patch = parseBlueprintMetadata(body);
  await ctx.em.transactional((tx) => updateBlueprintMetadata(tx, ctx, bp.id, patch));
  ctx.loaders.clear();
  await ctx.em.refresh(bp);
  return bp;
}

/**
 * Deletes a blueprint inside the caller's transaction `tx`. Areas above take their part first through
 * `blueprintDeleted` (architectures remove its nodes and edges); the database does the rest in the same
 * statement: forks keep living with `forked_from` null, lineage links, stars, reviews, versions,
 * changelog, subscriptions and runs go, and delivered broadcasts stay in inboxes with no source.
 */
export async function deleteBlueprint(tx: EntityManager, ctx: RequestContext, blueprintId: string): Promise<void> {
  const viewer = requireViewer(ctx);
  const rows: Array<{ forked_from_id: string | null; team_id: string | null; name: string; slug: string; visibility: Visibility }> = await tx.execute(
    'select forked_from_id, team_id, name, slug, visibility from blueprint where id = ? for update',
    [blueprintId],
  );
  if (rows.length === 0) throw notFound('blueprint', blueprintId);
  const gone = rows[0]!;
  if (gone.team_id !== null)
    await recordAudit(tx, {
      teamId: gone.team_id,
      actor: actorOf(ctx),
      action: 'blueprint.deleted',
      targetType: 'blueprint',
      targetId: blueprintId,
      details: { name: gone.name, slug: gone.slug },
    });
  await blueprintDeleted.fire(tx, ctx, { blueprintId, actorId: viewer.principalId });
  // The parent counts public forks that exist.
  if (rows[0]!.forked_from_id && rows[0]!.visibility === Visibility.PUBLIC)
    await tx.execute('update blueprint set forks_count = greatest(forks_count - 1, 0) where id = ?', [rows[0]!.forked_from_id]);
  await tx.execute('delete from blueprint where id = ?', [blueprintId]);
  await ctx.events.publish(tx, 'blueprint.activity', { blueprintId, kind: 'deleted', subjectId: null, actorId: viewer.principalId });
}

/** `DELETE /api/blueprints/:id`: the owner, or an owner or admin of its team. 404 unreadable, 403 readable only. */
export async function removeBlueprint(ctx: RequestContext, idOrSlug: string): Promise<void> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, idOrSlug);
  const roles = await viewerTeamRoles(ctx);
  const g = guardOf(bp);
  if (!canReadWith(viewer, roles, g)) throw notFound('blueprint', idOrSlug);
  if (!canDeleteWith(viewer, roles, g)) throw forbidden("Only the blueprint's owner, or an owner or admin of its team, may delete it");
  await ctx.em.transactional((tx) => deleteBlueprint(tx, ctx, bp.id));
  ctx.loaders.clear();
  ctx.em.clear();
}

/**
 * `POST /api/blueprints/:id/transfer {team_id}`: moves a blueprint into a team, between teams or out (null).
 * Who may move it where is the team's rule (`applyTransfer`); this locks the row, moves it and tells subscribers.
 */
export async function transferBlueprint(ctx: RequestContext, blueprintId: string, body: unknown): Promise<Blueprint> {
  requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId); // 404 when the caller may not see it
  await ctx.em.transactional(async (tx) => {
    const rows: Array<{ owner_id: string; team_id: string | null }> = await tx.execute('select owner_id, team_id from blueprint where id = ? for update', [
      bp.id,
    ]);
    if (!rows[0]) throw notFound('blueprint', blueprintId);
    const target = await applyTransfer(ctx, tx, { kind: 'blueprint', id: bp.id, ownerId: rows[0].owner_id, teamId: rows[0].team_id }, body);
    if (target === undefined) return;
    await tx.execute('update blueprint set team_id = ?, updated_at = now() where id = ?', [target, bp.id]);
    // Subscribers re-check access on every event: one who lost sight of it gets its stream ended.
    await ctx.events.publish(tx, 'blueprint.activity', { blueprintId: bp.id, kind: 'transferred', subjectId: target, actorId: ctx.viewer!.principalId });
  });
  ctx.loaders.clear();
  ctx.em.clear();
  // Read without the access check: a team owner moving someone's private blueprint out loses sight of it.
  const moved = await blueprintLoaders(ctx).byId.load(bp.id);
  if (!moved) throw notFound('blueprint', blueprintId);
  return moved;
}
