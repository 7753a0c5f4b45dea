import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import { canEditWith, canReadWith, viewerTeamRoles } from '../blueprints/access';
import type { Visibility } from '../blueprints/blueprint.entity';
import { freeSlug } from '../blueprints/slug';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import type { PageRequest } from '../platform/pagination';
import { recordAudit, actorOf } from '../teams/audit.service';
import { getTeam } from '../teams/team.service';
import { applyTransfer } from '../teams/transfer.service';
import { architectureColumns, guardOfArchitecture, toRecord, type ArchitectureRecord, type ArchitectureRow } from './architecture.read';
import { architectureInputs } from './architecture.contract';

/** What changed, as `architectureChanged` subscribers and the `architecture.changed` event name it. */
export type ArchitectureChangeKind =
  'node_added' | 'node_removed' | 'edge_added' | 'edge_removed' | 'layout_updated' | 'transferred' | 'node_updated' | 'updated' | 'deleted';

const createBody = compileSchema(architectureInputs.create);

export interface NewArchitecture {
  name: string;
  description: string;
  visibility: Visibility;
}

/** Writes a new, empty architecture owned by `ownerId` inside the caller's transaction (create and the compose tool). */
export async function insertArchitecture(tx: EntityManager, ownerId: string, input: NewArchitecture): Promise<ArchitectureRecord> {
  const slug = await freeSlug(tx, 'architecture', input.name, 'architecture');
  try {
    // Raw SQL rather than a persisted entity: references created in a transaction's fork are merged
    // back over entities the request already loaded (see architecture-edit.service.ts).
    const rows: ArchitectureRow[] = await tx.execute(
      `insert into architecture as a (id, slug, name, description, visibility, owner_id, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, now(), now()) returning ${architectureColumns}`,
      [randomUUID(), slug, input.name.trim(), input.description, input.visibility, ownerId],
    );
    return toRecord(rows[0]!);
  } catch (err) {
    // Two creates with one name at once: the unique index decides, the loser may simply retry.
    if (err instanceof UniqueConstraintViolationException) throw conflict('Another architecture took that slug a moment ago; retry', { slug });
    throw err;
  }
}

/** `POST /api/architectures`: an empty architecture owned by the caller, with a unique slug from its name. */
export async function createArchitecture(ctx: RequestContext, body: unknown): Promise<ArchitectureRecord> {
  const viewer = requireViewer(ctx);
  const input = assertValid<NewArchitecture>(createBody, structuredClone(body ?? {}), 'body');
  const arch = await ctx.em.transactional((tx) => insertArchitecture(tx, viewer.principalId, input));
  ctx.loaders.clear();
  return arch;
}

export interface ArchitectureSummary extends ArchitectureRecord {
  nodeCount: number;
  edgeCount: number;
}

/** A page of architectures matching `where` (on alias `a`), newest first, with node and edge counts. */
async function listArchitecturesWhere(
  ctx: RequestContext,
  where: string,
  params: unknown[],
  page: PageRequest,
): Promise<{ items: ArchitectureSummary[]; total: number }> {
  const rows: Array<ArchitectureRow & { total: string; node_count: string; edge_count: string }> = await ctx.em.execute(
    `select count(*) over () as total, ${architectureColumns},
            (select count(*) from architecture_node n where n.architecture_id = a.id) as node_count,
            (select count(*) from architecture_edge e where e.architecture_id = a.id) as edge_count
       from architecture a where ${where}
      order by a.created_at desc, a.id offset ? limit ?`,
    [...params, page.offset, page.limit],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted: Array<{ total: string }> = await ctx.em.execute(`select count(*) as total from architecture a where ${where}`, params);
    total = Number(counted[0]!.total);
  }
  return { items: rows.map((r) => ({ ...toRecord(r), nodeCount: Number(r.node_count), edgeCount: Number(r.edge_count) })), total };
}

/** Public architectures, newest first; the same for every caller (private ones are never listed). */
export function listPublicArchitectures(ctx: RequestContext, page: PageRequest): Promise<{ items: ArchitectureSummary[]; total: number }> {
  return listArchitecturesWhere(ctx, `a.visibility = 'public'`, [], page);
}

/** A person's architectures, newest first (`/users/:username`): public ones, and to the person themself private ones too. */
export function listOwnedArchitectures(ctx: RequestContext, ownerId: string, page: PageRequest): Promise<{ items: ArchitectureSummary[]; total: number }> {
  const self = ctx.viewer?.principalId === ownerId;
  return listArchitecturesWhere(ctx, self ? 'a.owner_id = ?' : `a.owner_id = ? and a.visibility = 'public'`, [ownerId], page);
}

/** A team's architectures, newest first, for any member of it (others: 404). */
export async function listTeamArchitectures(ctx: RequestContext, teamId: string, page: PageRequest): Promise<{ items: ArchitectureSummary[]; total: number }> {
  const team = await getTeam(ctx, teamId);
  return listArchitecturesWhere(ctx, 'a.team_id = ?', [team.id], page);
}

/**
 * Locks the architecture row for the rest of the write transaction, so that concurrent edits of one
 * architecture apply one after the other (auto-layout sees every node placed before it). 404 when the
 * caller may not read it.
 */
export async function lockArchitecture(ctx: RequestContext, tx: EntityManager, slug: string): Promise<ArchitectureRecord> {
  const rows: ArchitectureRow[] = await tx.execute(`select ${architectureColumns} from architecture a where a.slug = ? for update`, [slug]);
  const arch = rows[0] ? toRecord(rows[0]) : null;
  if (!arch || !canReadWith(ctx.viewer, await viewerTeamRoles(ctx), guardOfArchitecture(arch))) throw notFound('architecture', slug);
  return arch;
}

/** Locks an architecture the caller may edit: 401 anonymous, 404 unreadable, 403 readable only. */
export async function lockForEdit(ctx: RequestContext, tx: EntityManager, slug: string): Promise<ArchitectureRecord> {
  requireViewer(ctx);
  const arch = await lockArchitecture(ctx, tx, slug);
  if (!canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOfArchitecture(arch)))
    throw forbidden('Only the owner of the architecture or an editor of its team (owner, admin, member) may change it');
  return arch;
}

/** Marks the architecture changed and tells every subscriber once the transaction commits. */
export async function publishChange(
  ctx: RequestContext,
  tx: EntityManager,
  arch: ArchitectureRecord,
  change: ArchitectureChangeKind,
  subjectId: string | null,
): Promise<void> {
  await tx.execute('update architecture set updated_at = now() where id = ?', [arch.id]);
  // Every diagram edit of a team architecture is audited here, where every edit passes; transfers and
  // metadata PATCH / DELETE (architecture-lifecycle.service.ts) write their own, more specific entries.
  if (arch.teamId !== null && change !== 'transferred' && change !== 'updated' && change !== 'deleted')
    await recordAudit(tx, {
      teamId: arch.teamId,
      actor: actorOf(ctx),
      action: 'architecture.changed',
      targetType: 'architecture',
      targetId: arch.id,
      details: { change, subject_id: subjectId },
    });
  await ctx.events.publish(tx, 'architecture.changed', { architectureId: arch.id, slug: arch.slug, change, subjectId, actorId: ctx.viewer!.principalId });
}

/**
 * Moves the architecture into a team, between teams or out of its team (`team_id: null`), by the rules
 * blueprints follow (`applyTransfer`): out of a team, the team owner only; into one, the architecture's
 * owner, who must be an owner, admin or member there. Audited in both teams.
 */
export async function transferArchitecture(ctx: RequestContext, slug: string, body: unknown): Promise<ArchitectureRecord> {
  requireViewer(ctx);
  await ctx.em.transactional(async (tx) => {
    const arch = await lockArchitecture(ctx, tx, slug);
    const target = await applyTransfer(ctx, tx, { kind: 'architecture', id: arch.id, ownerId: arch.ownerId, teamId: arch.teamId }, body);
    if (target === undefined) return;
    await tx.execute('update architecture set team_id = ? where id = ?', [target, arch.id]);
    await publishChange(ctx, tx, arch, 'transferred', target);
  });
  ctx.loaders.clear();
  const rows: ArchitectureRow[] = await ctx.em.execute(`select ${architectureColumns} from architecture a where a.slug = ?`, [slug]);
  return toRecord(rows[0]!);
}
