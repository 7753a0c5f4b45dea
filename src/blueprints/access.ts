import type { RequestContext, Viewer } from '../platform/context';
import { forbidden, notFound, unauthenticated } from '../platform/errors';
import { TeamRole, editorRoles, managerRoles } from '../teams/team.entity';
import { Visibility } from './blueprint.entity';
import type { BlueprintView } from './blueprint.view';

/** teamId -> the viewer's role there; loaded once per request. */
export function viewerTeamRoles(ctx: RequestContext): Promise<Map<string, TeamRole>> {
  const viewer = ctx.viewer;
  if (!viewer) return Promise.resolve(new Map());
  return ctx.loaders.once('viewer.teamRoles', async () => {
    const rows: Array<{ team_id: string; role: TeamRole }> = await ctx.em.execute('select team_id, role from team_member where principal_id = ?', [
      viewer.principalId,
    ]);
    return new Map(rows.map((r) => [r.team_id, r.role]));
  });
}

/** The fields the access rules look at, so rules work on entities and on raw rows alike. */
export interface Guarded {
  visibility: Visibility | string;
  ownerId: string;
  teamId: string | null;
}

export function guardOf(bp: BlueprintView): Guarded {
  return { visibility: bp.visibility, ownerId: bp.owner.id, teamId: bp.team?.id ?? null };
}

export function isOwner(viewer: Pick<Viewer, 'principalId'> | null, g: Guarded): boolean {
  return viewer !== null && viewer.principalId === g.ownerId;
}

/** Public, owned, or shared with a team the viewer is in (any role). */
export function canReadWith(viewer: Pick<Viewer, 'principalId'> | null, roles: ReadonlyMap<string, TeamRole>, g: Guarded): boolean {
  if (g.visibility === Visibility.PUBLIC || isOwner(viewer, g)) return true;
  return g.teamId !== null && roles.has(g.teamId);
}

/** Owned, or in a team where the viewer's role may edit (owner, admin, member). */
export function canEditWith(viewer: Viewer | null, roles: Map<string, TeamRole>, g: Guarded): boolean {
  if (isOwner(viewer, g)) return true;
  const role = g.teamId === null ? undefined : roles.get(g.teamId);
  return role !== undefined && editorRoles.includes(role);
}

/**
 * Owned, or in a team where the viewer manages (owner, admin): who may delete a blueprint or an
 * architecture. Members edit team things but do not delete them.
 */
export function canDeleteWith(viewer: Viewer | null, roles: Map<string, TeamRole>, g: Pick<Guarded, 'ownerId' | 'teamId'>): boolean {
  if (viewer !== null && viewer.principalId === g.ownerId) return true;
  const role = g.teamId === null ? undefined : roles.get(g.teamId);
  return role !== undefined && managerRoles.includes(role);
}

export async function canRead(ctx: RequestContext, g: Guarded): Promise<boolean> {
  // Public and owned blueprints need no team lookup (a live subscription would pay it per event).
  if (g.visibility === Visibility.PUBLIC || isOwner(ctx.viewer, g)) return true;
  if (g.teamId === null) return false;
  return canReadWith(ctx.viewer, await viewerTeamRoles(ctx), g);
}

/** 404 (never 403) when the viewer may not see it: a private thing's existence is not revealed. */
export async function assertReadable(ctx: RequestContext, bp: BlueprintView, idForMessage: string): Promise<void> {
  if (!(await canRead(ctx, guardOf(bp)))) throw notFound('blueprint', idForMessage);
}

/**
 * The owner-only rule (version history, changelog, broadcasts), for a blueprint the caller may read:
 * anonymous 401, not the owner 403. Team editors are not owners: these speak for the owner only.
 */
export function assertOwner(ctx: RequestContext, bp: BlueprintView, action: string): void {
  if (!ctx.viewer) throw unauthenticated('A bearer token is required');
  if (!isOwner(ctx.viewer, guardOf(bp))) throw forbidden(`Only the blueprint's owner may ${action}`);
}

/** 404 when unreadable, 403 when readable but not editable. */
export async function assertEditable(ctx: RequestContext, bp: BlueprintView, idForMessage: string): Promise<void> {
  const roles = await viewerTeamRoles(ctx);
  const g = guardOf(bp);
  if (!canReadWith(ctx.viewer, roles, g)) throw notFound('blueprint', idForMessage);
  if (!canEditWith(ctx.viewer, roles, g)) throw forbidden('Only the owner or a team editor may change this blueprint');
}

/**
 * SQL condition "principal `who` may read blueprint `alias`": public, owned, or shared with a team `who` is
 * in. `who` is an SQL expression (a column such as `r.principal_id`, or `?`, bound twice). The one SQL
 * spelling of {@link canReadWith}.
 */
export function readableBySql(alias: string, who: string): string {
  return `(${alias}.visibility = 'public' or ${alias}.owner_id = ${who} or exists (select 1 from team_member tm where tm.team_id = ${alias}.team_id and tm.principal_id = ${who}))`;
}

/**
 * SQL condition "the viewer may read blueprint `alias`", with its parameters. Used by every list
 * so that private blueprints never leak through lineage, forks or search.
 */
export function readableSql(alias: string, viewer: Viewer | null): { sql: string; params: unknown[] } {
  if (!viewer) return { sql: `${alias}.visibility = 'public'`, params: [] };
  return { sql: readableBySql(alias, '?'), params: [viewer.principalId, viewer.principalId] };
}
