import type { RequestContext } from '../platform/context';
import type { Team } from './team.entity';
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
