import { nameField } from '../platform/field-schemas';
import { args, arrayOf, bool, idArg, shape, str } from '../mcp/mcp-schema';
import { mcpTool } from '../mcp/mcp-tool';
import { TeamRole } from './team.entity';
import { addTeamMember, createTeam, getTeam, removeTeamMember, updateTeamMember } from './team.service';
import { toTeamBody } from './team.wire';

const role = { type: 'string', enum: Object.values(TeamRole) };
const teamSchema = shape({
  id: str,
  name: str,
  conventions: str,
  viewer_role: { anyOf: [{ type: 'null' }, role] },
  members: arrayOf(shape({ principal_id: str, kind: str, name: str, role, joined_at: str })),
  created_at: str,
  updated_at: str,
});
const teamId = { team_id: idArg('The team id.') };
const principalId = { principal_id: { type: 'string', format: 'uuid', description: 'The member: a user or agent session id.' } };

/** Teams as MCP tools: the same services and bodies as `/api/teams`. */
export const teamMcpTools = [
  mcpTool<{ name: string }>({
    name: 'team_create',
    description: 'Create a team; you become its owner. Same body as POST /api/teams.',
    input: args({ name: nameField }, ['name']),
    output: teamSchema,
    readOnly: false,
    handler: async (ctx, a) => toTeamBody(ctx, await createTeam(ctx, a)),
  }),
  mcpTool<{ team_id: string }>({
    name: 'team_get',
    description: 'One team you belong to: its conventions, your role and its members. Same body as GET /api/teams/:id.',
    input: args(teamId, ['team_id']),
    output: teamSchema,
    readOnly: true,
    handler: async (ctx, a) => toTeamBody(ctx, await getTeam(ctx, a.team_id)),
  }),
  mcpTool<{ team_id: string; principal_id: string; role: string }>({
    name: 'team_add_member',
    description: 'Add a member with a role (owner or admin only; never a second owner). Same body as POST /api/teams/:id/members.',
    input: args({ ...teamId, ...principalId, role }, ['team_id', 'principal_id', 'role']),
    output: teamSchema,
    readOnly: false,
    handler: async (ctx, { team_id, ...body }) => toTeamBody(ctx, await addTeamMember(ctx, team_id, body)),
  }),
  mcpTool<{ team_id: string; principal_id: string; role: string }>({
    name: 'team_update_member',
    description: "Change a member's role (owner or admin only; the owner's role cannot change). Same body as PATCH /api/teams/:id/members/:principalId.",
    input: args({ ...teamId, ...principalId, role }, ['team_id', 'principal_id', 'role']),
    output: teamSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toTeamBody(ctx, await updateTeamMember(ctx, a.team_id, a.principal_id, { role: a.role })),
  }),
  mcpTool<{ team_id: string; principal_id: string }>({
    name: 'team_remove_member',
    description: 'Remove a member (owner or admin; anyone may remove themselves, except the owner). REST answers 204: DELETE /api/teams/:id/members/:principalId. Answers {team_id, principal_id, removed: true}.',
    input: args({ ...teamId, ...principalId }, ['team_id', 'principal_id']),
    output: shape({ team_id: str, principal_id: str, removed: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      await removeTeamMember(ctx, a.team_id, a.principal_id);
      return { team_id: a.team_id, principal_id: a.principal_id, removed: true };
    },
  }),
];
