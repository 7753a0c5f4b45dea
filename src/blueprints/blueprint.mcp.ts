import { args, argsOf, bool, idArg, obj, pageArgs, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { teamIdArg } from '../teams/team.mcp';
import { blueprintContract, blueprintInputs } from './blueprint.contract';
import { removeBlueprint, transferBlueprint, updateBlueprint } from './blueprint-lifecycle.service';
import { getBlueprint, starBlueprint } from './blueprint.service';
import { teamBlueprintsBody, toBlueprintBody, toStarBody } from './blueprint.wire';

const blueprintSchema = blueprintContract.get.response[200];
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };
const starSchema = blueprintContract.star.response[200];

/** Blueprints as MCP tools: the same services and bodies as `/api/blueprints/:id[/star|/transfer]` and `/api/teams/:id/blueprints`. */
export const blueprintMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_get',
    description: 'One blueprint (id or slug) with its plan: modules, steps, configuration, design system. Same body as GET /api/blueprints/:id.',
    input: args(blueprintId, ['blueprint_id']),
    output: blueprintSchema,
    readOnly: true,
    handler: async (ctx, a) => toBlueprintBody(ctx, await getBlueprint(ctx, a.blueprint_id)),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_star',
    description: 'Star a blueprint (once per caller; starring again changes nothing). Same body as POST /api/blueprints/:id/star.',
    input: args(blueprintId, ['blueprint_id']),
    output: starSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toStarBody(await starBlueprint(ctx, a.blueprint_id, true), true),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_unstar',
    description: 'Remove your star from a blueprint. Same body as DELETE /api/blueprints/:id/star.',
    input: args(blueprintId, ['blueprint_id']),
    output: starSchema,
    readOnly: false,
    destructive: true,
    idempotent: true,
    handler: async (ctx, a) => toStarBody(await starBlueprint(ctx, a.blueprint_id, false), false),
  }),
  mcpTool<{ blueprint_id: string; name?: string; description?: string; tags?: string[]; visibility?: string }>({
    name: 'blueprint_update',
    description:
      "Change a blueprint's name, description, tags or visibility (owner or team editor; the slug never changes). Same body as PATCH /api/blueprints/:id.",
    input: argsOf(blueprintId, blueprintInputs.update),
    output: blueprintSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, ...patch }) => toBlueprintBody(ctx, await updateBlueprint(ctx, blueprint_id, patch)),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_delete',
    description:
      'Delete a blueprint (owner; team owner or admin). Its forks survive with forked_from null; its lineage links, architecture nodes, stars, reviews, versions, changelog and runs go with it. REST answers 204: DELETE /api/blueprints/:id. Answers {blueprint_id, deleted: true}.',
    input: args(blueprintId, ['blueprint_id']),
    output: obj({ blueprint_id: str, deleted: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      const bp = await getBlueprint(ctx, a.blueprint_id);
      await removeBlueprint(ctx, bp.id);
      return { blueprint_id: bp.id, deleted: true };
    },
  }),
  mcpTool<{ team_id: string; limit?: number; offset?: number }>({
    name: 'team_blueprints',
    description: "A team's blueprints, newest first. Same body as GET /api/teams/:id/blueprints.",
    input: args({ ...teamIdArg, ...pageArgs }, ['team_id']),
    output: blueprintContract.teamBlueprints.response[200],
    readOnly: true,
    handler: (ctx, a) => teamBlueprintsBody(ctx, a.team_id, a),
  }),
  mcpTool<{ blueprint_id: string; team_id: string | null }>({
    name: 'blueprint_transfer',
    description:
      'Move a blueprint you own into a team where you are a member or above, between teams, or out of its team (team_id null; team owner only). Same body as POST /api/blueprints/:id/transfer.',
    input: argsOf(blueprintId, blueprintInputs.transfer),
    output: blueprintSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, ...body }) => toBlueprintBody(ctx, await transferBlueprint(ctx, blueprint_id, body)),
  }),
];
