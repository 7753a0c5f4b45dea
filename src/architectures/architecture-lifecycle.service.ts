import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import { canDeleteWith, viewerTeamRoles } from '../blueprints/access';
import type { Visibility } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { forbidden } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { actorOf, recordAudit } from '../teams/audit.service';
import { architectureColumns, toRecord, type ArchitectureRecord, type ArchitectureRow } from './architecture.read';
import { lockArchitecture, lockForEdit, publishChange } from './architecture.service';
import { architectureInputs } from './architecture.contract';

export interface ArchitectureMetadata {
  name?: string;
  description?: string;
  visibility?: Visibility;
}

const patchBody = compileSchema(architectureInputs.update);

export function parseArchitectureMetadata(body: unknown): ArchitectureMetadata {
  const input = assertValid<ArchitectureMetadata>(patchBody, structuredClone(body ?? {}), 'body');
  return input.name === undefined ? input : { ...input, name: input.name.trim() };
}

/**
 * Applies a metadata patch to an architecture the caller may edit, inside `tx` (row locked); the slug
 * never changes. Subscribers get an `architectureChanged` UPDATED (and those who may no longer read a
 * now-private one get nothing more).
 */
export async function updateArchitectureMetadata(
  tx: EntityManager,
  ctx: RequestContext,
  slug: string,
  patch: ArchitectureMetadata,
): Promise<{ architecture: ArchitectureRecord; changes: Record<string, { from: unknown; to: unknown }> }> {
  const arch = await lockForEdit(ctx, tx, slug);
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ['name', 'description', 'visibility'] as const)
    if (patch[key] !== undefined && patch[key] !== arch[key]) changes[key] = { from: arch[key], to: patch[key] };
  if (Object.keys(changes).length === 0) return { architecture: arch, changes };
  const rows: ArchitectureRow[] = await tx.execute(
    `update architecture a set name = coalesce(?, name), description = coalesce(?, description), visibility = coalesce(?, visibility)
      where a.id = ? returning ${architectureColumns}`,
    [patch.name ?? null, patch.description ?? null, patch.visibility ?? null, arch.id],
  );
  await publishChange(ctx, tx, arch, 'updated', null);
  if (arch.teamId !== null)
    await recordAudit(tx, {
      teamId: arch.teamId,
      actor: actorOf(ctx),
      action: 'architecture.edited',
      targetType: 'architecture',
      targetId: arch.id,
      details: { changes },
    });
  return { architecture: toRecord(rows[0]!), changes };
}

/**
 * Deletes an architecture inside `tx`: the owner, or an owner or admin of its team (404 unreadable, 403
 * readable only). Nodes and edges go with it (the blueprints stay); subscribers get DELETED.
 */
export async function deleteArchitecture(tx: EntityManager, ctx: RequestContext, slug: string): Promise<ArchitectureRecord> {
  const viewer = requireViewer(ctx);
  const arch = await lockArchitecture(ctx, tx, slug);
  if (!canDeleteWith(viewer, await viewerTeamRoles(ctx), arch))
    throw forbidden("Only the architecture's owner, or an owner or admin of its team, may delete it");
  await publishChange(ctx, tx, arch, 'deleted', arch.id);
  if (arch.teamId !== null)
    await recordAudit(tx, {
      teamId: arch.teamId,
      actor: actorOf(ctx),
      action: 'architecture.deleted',
      targetType: 'architecture',
      targetId: arch.id,
      details: { name: arch.name, slug: arch.slug },
    });
  await tx.execute('delete from architecture where id = ?', [arch.id]);
  return arch;
}

export async function updateArchitecture(ctx: RequestContext, slug: string, body: unknown): Promise<ArchitectureRecord> {
  requireViewer(ctx);
  const patch = parseArchitectureMetadata(body);
  const { architecture } = await ctx.em.transactional((tx) => updateArchitectureMetadata(tx, ctx, slug, patch));
  ctx.loaders.clear();
  return architecture;
}

export async function removeArchitecture(ctx: RequestContext, slug: string): Promise<void> {
  await ctx.em.transactional((tx) => deleteArchitecture(tx, ctx, slug));
  ctx.loaders.clear();
}
