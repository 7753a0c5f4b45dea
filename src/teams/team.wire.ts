import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { toAuditEntryBody } from './audit.service';
import type { Team } from './team.entity';
import { listMyTeams, teamAuditLog, type TeamSummary } from './team-lifecycle.service';
import { teamMembers, viewerRoleIn } from './team.service';

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

/** `GET /api/teams` (REST and MCP): the caller's teams with their role. */
export async function teamListBody(ctx: RequestContext, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await listMyTeams(ctx, page);
  return { items: items.map(toTeamListItem), total, ...page };
}

/** `GET /api/teams/:id/audit` (REST and MCP): newest first, optionally one action. */
export async function teamAuditBody(ctx: RequestContext, teamId: string, query: { limit?: unknown; offset?: unknown; action?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await teamAuditLog(ctx, teamId, page, query.action);
  return { items: items.map(toAuditEntryBody), total, ...page };
}
