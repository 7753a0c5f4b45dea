import { args, argsOf, bool, idArg, obj, pageArgs, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { teamAnalytics, toAnalyticsBody } from './analytics.service';
import { auditActions } from './audit.service';
import { deleteTeam, updateTeam } from './team-lifecycle.service';
import { teamContract, teamInputs } from './team.contract';
import { addTeamMember, createTeam, getTeam, removeTeamMember, updateTeamMember } from './team.service';
import { teamAuditBody, teamListBody, toTeamBody } from './team.wire';

const teamSchema = teamContract.get.response[200];
/** The `team_id` argument of the team tools (and of the team lists other areas serve). */
export const teamIdArg = { team_id: idArg('The team id.') };

/** Teams as MCP tools: the same services and bodies as `/api/teams`. */
export const teamMcpTools = [
  mcpTool<{ name: string }>({
    name: 'team_create',
    description: 'Create a team; you become its owner. Same body as POST /api/teams.',
    input: argsOf({}, teamInputs.create),
    output: teamSchema,
    readOnly: false,
    handler: async (ctx, a) => toTeamBody(ctx, await createTeam(ctx, a)),
  }),
  mcpTool<{ team_id: string }>({
    name: 'team_get',
    description: 'One team you belong to: its conventions, your role and its members. Same body as GET /api/teams/:id.',
    input: args(teamIdArg, ['team_id']),
    output: teamSchema,
    readOnly: true,
    handler: async (ctx, a) => toTeamBody(ctx, await getTeam(ctx, a.team_id)),
  }),
  mcpTool<{ team_id: string; principal_id: string; role: string }>({
    name: 'team_add_member',
    description: 'Add a member with a role (owner or admin only; never a second owner). Same body as POST /api/teams/:id/members.',
    input: argsOf(teamIdArg, teamInputs.addMember),
    output: teamSchema,
    readOnly: false,
    handler: async (ctx, { team_id, ...body }) => toTeamBody(ctx, await addTeamMember(ctx, team_id, body)),
  }),
  mcpTool<{ team_id: string; principal_id: string; role: string }>({
    name: 'team_update_member',
    description: "Change a member's role (owner or admin only; the owner's role cannot change). Same body as PATCH /api/teams/:id/members/:principalId.",
    input: argsOf({ ...teamIdArg, ...teamInputs.principalId }, teamInputs.updateMember),
    output: teamSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toTeamBody(ctx, await updateTeamMember(ctx, a.team_id, a.principal_id, { role: a.role })),
  }),
  mcpTool<{ team_id: string; principal_id: string }>({
    name: 'team_remove_member',
    description:
      'Remove a member (owner or admin; anyone may remove themselves, except the owner). REST answers 204: DELETE /api/teams/:id/members/:principalId. Answers {team_id, principal_id, removed: true}.',
    input: args({ ...teamIdArg, ...teamInputs.principalId }, ['team_id', 'principal_id']),
    output: obj({ team_id: str, principal_id: str, removed: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      await removeTeamMember(ctx, a.team_id, a.principal_id);
      return { team_id: a.team_id, principal_id: a.principal_id, removed: true };
    },
  }),
  mcpTool<{ limit?: number; offset?: number }>({
    name: 'team_list',
    description: 'Your teams with your role in each and what each holds. Same body as GET /api/teams.',
    input: args(pageArgs),
    output: teamContract.list.response[200],
    readOnly: true,
    handler: (ctx, a) => teamListBody(ctx, a),
  }),
  mcpTool<{ team_id: string; name?: string; conventions?: string }>({
    name: 'team_update',
    description:
      "Rename a team or change its conventions (owner or admin); conventions are injected into every run of the team's blueprints. Same body as PATCH /api/teams/:id.",
    input: argsOf(teamIdArg, teamInputs.update),
    output: teamSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { team_id, ...body }) => toTeamBody(ctx, await updateTeam(ctx, team_id, body)),
  }),
  mcpTool<{ team_id: string }>({
    name: 'team_delete',
    description:
      'Delete a team (owner only); CONFLICT, naming the counts, while it still holds blueprints or architectures. REST answers 204: DELETE /api/teams/:id. Answers {team_id, deleted: true}.',
    input: args(teamIdArg, ['team_id']),
    output: obj({ team_id: str, deleted: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      await deleteTeam(ctx, a.team_id);
      return { team_id: a.team_id, deleted: true };
    },
  }),
  mcpTool<{ team_id: string; action?: string; limit?: number; offset?: number }>({
    name: 'team_audit',
    description: "A team's audit log, newest first (owner, admin, member; viewers FORBIDDEN), optionally one action. Same body as GET /api/teams/:id/audit.",
    input: args({ ...teamIdArg, action: { type: 'string', enum: [...auditActions] }, ...pageArgs }, ['team_id']),
    output: teamContract.audit.response[200],
    readOnly: true,
    handler: (ctx, a) => teamAuditBody(ctx, a.team_id, a),
  }),
  mcpTool<{ team_id: string; window_days?: number }>({
    name: 'team_analytics',
    description:
      'Totals and a per-day series of blueprints created, forks, stars, executions and success rate, and the top 10 team blueprints, over window_days (default 30). Same body as GET /api/teams/:id/analytics.',
    input: args({ ...teamIdArg, window_days: { type: 'integer', minimum: 1, maximum: 365, default: 30 } }, ['team_id']),
    output: teamContract.analytics.response[200],
    readOnly: true,
    handler: async (ctx, a) => toAnalyticsBody(await teamAnalytics(ctx, a.team_id, a.window_days)),
  }),
];
