import type { RequestContext } from '../platform/context';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { toCard } from '../blueprints/blueprint.wire';
import { listTeamArchitectures } from '../architectures/architecture.service';
import { toSummaryBody } from '../architectures/architecture.wire';
import { pageFromQuery } from '../platform/pagination';
import { toAuditEntryBody } from './audit.service';
import { teamBlueprints } from './team-content.service';
import type { Team } from './team.entity';
import { listMyTeams, teamAuditLog, type TeamSummary } from './team-lifecycle.service';
import { getTeam, teamMembers, viewerRoleIn } from './team.service';

/** The REST team body: the team, the caller's role and the members (owner, admins, members, viewers). */
export async function toTeamBody(ctx: RequestContext, team: Team) {
  const [members, viewerRole] = await Promise.all([teamMembers(ctx, team.id), viewerRoleIn(ctx, team.id)]);
  return {
    id: team.id,
    name: team.name,
    conventions: team.conventions,
    viewer_role: viewerRole,
    members: members.map((m) => ({ principal_id: m.principalId, kind: m.kind, name: m.name, role: m.role, joined_at: m.joinedAt.toISOString() })),
    created_at: team.createdAt.toISOString(),
    updated_at: team.updatedAt.toISOString(),
  };
}

/** An item of `GET /api/teams`: the team, the caller's `role` there and what it holds. */
export function toTeamListItem(s: TeamSummary) {
  return {
    id: s.team.id,
    name: s.team.name,
    conventions: s.team.conventions,
    role: s.role,
    member_count: s.memberCount,
    blueprint_count: s.blueprintCount,
    architecture_count: s.architectureCount,
    created_at: s.team.createdAt.toISOString(),
    updated_at: s.team.updatedAt.toISOString(),
  };
}

/** An item of `GET /api/teams/:id/blueprints`: the registry card with owner, team and visibility. */
export function toTeamBlueprintItem(bp: Blueprint) {
  return {
    ...toCard(bp),
    description: bp.description,
    tags: bp.tags,
    visibility: bp.visibility,
    owner_id: bp.owner.id,
    team_id: bp.team?.id ?? null,
    forks_count: bp.forksCount,
    created_at: bp.createdAt.toISOString(),
    updated_at: bp.updatedAt.toISOString(),
  };
}

/** `GET /api/teams` (REST and MCP): the caller's teams with their role. */
export async function teamListBody(ctx: RequestContext, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await listMyTeams(ctx, page);
  return { items: items.map(toTeamListItem), total, ...page };
}

/** `GET /api/teams/:id/blueprints` (REST and MCP). */
export async function teamBlueprintsBody(ctx: RequestContext, teamId: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await teamBlueprints(ctx, teamId, page);
  return { items: items.map(toTeamBlueprintItem), total, ...page };
}

/** `GET /api/teams/:id/architectures` (REST and MCP). */
export async function teamArchitecturesBody(ctx: RequestContext, teamId: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const team = await getTeam(ctx, teamId);
  const { items, total } = await listTeamArchitectures(ctx, team.id, page);
  return { items: items.map(toSummaryBody), total, ...page };
}

/** `GET /api/teams/:id/audit` (REST and MCP): newest first, optionally one action. */
export async function teamAuditBody(ctx: RequestContext, teamId: string, query: { limit?: unknown; offset?: unknown; action?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await teamAuditLog(ctx, teamId, page, query.action);
  return { items: items.map(toAuditEntryBody), total, ...page };
}
