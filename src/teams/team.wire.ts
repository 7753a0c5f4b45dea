import type { RequestContext } from '../platform/context';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { toCard } from '../blueprints/blueprint.wire';
import type { Team } from './team.entity';
import type { TeamSummary } from './team-lifecycle.service';
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
