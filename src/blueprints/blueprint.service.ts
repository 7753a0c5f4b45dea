import type { EntityManager } from '@mikro-orm/postgresql';
import { Principal } from '../auth/principal.entity';
import { requireViewer } from '../auth/auth.service';
import type { Plan } from '../plans/plan';
import { assertValidPlan } from '../plans/plan.validation';
import type { RequestContext } from '../platform/context';
import type { SqlFragment } from '../platform/sql/database';
import { invalid, notFound } from '../platform/errors';
import { Team } from '../teams/team.entity';
import { getTeam } from '../teams/team.service';
import { isUuid } from '../platform/sql/ids';
import type { PageRequest } from '../platform/pagination';
import { recordFirstVersion } from './blueprint-version.service';
import { assertOwner, assertReadable } from './access';
import { Blueprint, Visibility } from './blueprint.entity';
import type { BlueprintView } from './blueprint.view';
import { blueprintLoaders, blueprintRowLoader } from './blueprint.loaders';
import { listProjection, projectionOf, type BlueprintProjection } from './blueprint.projection';
import { freeSlug } from './slug';

/** A blueprint by id or slug, or 404 when it does not exist or the viewer may not see it. */
export async function getBlueprint(ctx: RequestContext, idOrSlug: string): Promise<Blueprint> {
  const loaders = blueprintLoaders(ctx);
  const bp = isUuid(idOrSlug) ? await loaders.byId.load(idOrSlug.toLowerCase()) : await loaders.bySlug.load(idOrSlug);
  if (!bp) throw notFound('blueprint', idOrSlug);
  await assertReadable(ctx, bp, idOrSlug);
  return bp;
}

/**
 * `getBlueprint` on the read path: a plain row of the projection's columns (GraphQL passes the columns its
 * selection needs), for answers that change nothing. The same 404 rule. `extra` rides along in the same
 * statement (see `blueprintRowLoader`); it must show nothing the caller may not read, as it is computed
 * before the access check.
 */
export async function readBlueprint(ctx: RequestContext, idOrSlug: string, projection: BlueprintProjection, extra?: SqlFragment): Promise<BlueprintView> {
  const byId = isUuid(idOrSlug);
  if (!byId && !projection.includes('slug')) projection = projectionOf([...projection.columns, 'slug']);
  const bp = await blueprintRowLoader(ctx, projection, byId ? 'id' : 'slug', extra).load(byId ? idOrSlug.toLowerCase() : idOrSlug);
  if (!bp) throw notFound('blueprint', idOrSlug);
  await assertReadable(ctx, bp, idOrSlug);
  return bp;
}

/** Several blueprints by id, each readable by the viewer, in the order given; 404 names the first missing. */
export async function getBlueprints(ctx: RequestContext, ids: string[]): Promise<Blueprint[]> {
  const out: Blueprint[] = [];
  for (const id of ids) {
    if (!isUuid(id)) throw notFound('blueprint', id);
  }
  const found = await blueprintLoaders(ctx).byId.loadMany(ids.map((id) => id.toLowerCase()));
  for (let i = 0; i < ids.length; i++) {
    const bp = found[i];
    if (!bp || bp instanceof Error) throw notFound('blueprint', ids[i]);
    await assertReadable(ctx, bp, ids[i]!);
    out.push(bp);
  }
  return out;
}

/**
 * A page of the blueprints `where` selects (on `b`, with the one parameter `param`), newest first, with
 * their total: counted beside the page, or on its own when the page lies past the last row.
 */
async function newestBlueprints(
  ctx: RequestContext,
  where: string,
  param: string,
  page: PageRequest,
  projection: BlueprintProjection,
): Promise<{ items: BlueprintView[]; total: number }> {
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select ${projection.sql('b')}, count(*) over () as total from blueprint b where ${where} order by b.created_at desc, b.id offset ? limit ?`,
    [param, page.offset, page.limit],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted: Array<{ n: string }> = await ctx.em.execute(`select count(*) as n from blueprint b where ${where}`, [param]);
    total = Number(counted[0]!.n);
  }
  return { items: rows.map((r) => projection.map(r)), total };
}

/** A team's blueprints, newest first, for any member of it (others: 404). */
export async function teamBlueprints(
  ctx: RequestContext,
  teamId: string,
  page: PageRequest,
  projection = listProjection,
): Promise<{ items: BlueprintView[]; total: number }> {
  const team = await getTeam(ctx, teamId);
  return newestBlueprints(ctx, 'b.team_id = ?', team.id, page, projection);
}

/**
 * A person's blueprints, newest first (`/users/:username`): the public ones, and to the person themself
 * the private ones too. Nobody else sees a private one listed here, teammates included (the team's page lists those).
 */
export function ownedBlueprints(
  ctx: RequestContext,
  ownerId: string,
  page: PageRequest,
  projection = listProjection,
): Promise<{ items: BlueprintView[]; total: number }> {
  const where = ctx.viewer?.principalId === ownerId ? 'b.owner_id = ?' : `b.owner_id = ? and b.visibility = 'public'`;
  return newestBlueprints(ctx, where, ownerId, page, projection);
}

/** The blueprint, when the caller owns it: anonymous 401, may not see it 404, not its owner 403. */
export async function getOwnedBlueprint(ctx: RequestContext, idOrSlug: string, action: string): Promise<Blueprint> {
  requireViewer(ctx);
  const bp = await getBlueprint(ctx, idOrSlug);
  assertOwner(ctx, bp, action);
  return bp;
}

export interface NewBlueprint {
  name: string;
  description: string;
  tags: string[];
  visibility: Visibility;
  plan: Plan;
  /** The team it is created in; the caller checked that the owner may put blueprints there. */
  teamId?: string | null;
}

/**
 * Writes a new blueprint owned by `ownerId` with version 1, inside the caller's transaction `tx`.
 * Used by the create tool and every NEW-output tool.
 */
export async function insertBlueprint(
  tx: EntityManager,
  ctx: RequestContext,
  ownerId: string,
  input: NewBlueprint,
  cause: string,
  changes: Record<string, unknown>,
): Promise<Blueprint> {
  assertValidPlan(input.plan, ctx.config.limits);
  const bp = new Blueprint({
    slug: await freeSlug(tx, 'blueprint', input.name, 'blueprint'),
    name: input.name,
    visibility: input.visibility,
    owner: tx.getReference(Principal, ownerId, { wrapped: true }),
    plan: input.plan,
  });
  bp.description = input.description;
  bp.tags = normaliseTags(input.tags);
  if (input.teamId) bp.team = tx.getReference(Team, input.teamId, { wrapped: true });
  tx.persist(bp);
  recordFirstVersion(tx, bp, ownerId, cause, changes);
  return bp;
}

/** Tags are lowercase, trimmed, unique, in the order first given. */
export function normaliseTags(tags: string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = tag.trim().toLowerCase();
    if (t) seen.add(t);
  }
  return [...seen];
}

/** Stars a readable blueprint; starring twice is a no-op. Returns the blueprint with its new count. */
export async function starBlueprint(ctx: RequestContext, id: string, on: boolean): Promise<Blueprint> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, id);
  await ctx.em.transactional(async (tx) => {
    const changed = on
      ? await tx.execute(
          'insert into star (principal_id, blueprint_id, created_at) values (?, ?, now()) on conflict do nothing',
          [viewer.principalId, bp.id],
          'run',
        )
      : await tx.execute('delete from star where principal_id = ? and blueprint_id = ?', [viewer.principalId, bp.id], 'run');
    const affected = (changed as { affectedRows?: number }).affectedRows ?? 0;
    if (affected > 0) {
      await tx.execute(`update blueprint set stars_count = stars_count ${on ? '+' : '-'} 1 where id = ?`, [bp.id]);
      await ctx.events.publish(tx, 'blueprint.activity', {
        blueprintId: bp.id,
        kind: on ? 'starred' : 'unstarred',
        subjectId: viewer.principalId,
        actorId: viewer.principalId,
      });
    }
  });
  ctx.loaders.clear();
  await ctx.em.refresh(bp);
  return bp;
}

/** Whether the viewer has starred each blueprint, batched. */
export async function viewerHasStarred(ctx: RequestContext, blueprintId: string): Promise<boolean> {
  if (!ctx.viewer) return false;
  return blueprintLoaders(ctx).starredByViewer.load(blueprintId);
}

export function assertVisibility(value: unknown): Visibility {
  if (value === Visibility.PUBLIC || value === Visibility.PRIVATE) return value;
  throw invalid('visibility', 'must be public or private', 'visibility must be "public" or "private"');
}
