import { args, arrayOf, bool, freeObject, idArg, int, nullable, num, obj, page, pageArgs, str, strings } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { descriptionField, nameField, tagsField, visibilityField } from '../platform/field-schemas';
import { teamIdArg } from '../teams/team.mcp';
import { removeBlueprint, transferBlueprint, updateBlueprint } from './blueprint-lifecycle.service';
import { getBlueprint, starBlueprint } from './blueprint.service';
import { teamBlueprintsBody, toBlueprintBody, toStarBody } from './blueprint.wire';

/** The card of docs/api.md (registry, lineage, architecture nodes). */
export const cardSchema = obj({
  id: str,
  slug: str,
  name: str,
  stars: int,
  module_count: int,
  step_count: int,
  success_rate: nullable(num),
  review_count: int,
  rating_average: nullable(num),
});

/** The blueprint body of docs/api.md. */
export const blueprintSchema = obj({
  id: str,
  slug: str,
  name: str,
  description: str,
  tags: strings,
  visibility: { type: 'string', enum: ['public', 'private'] },
  owner_id: str,
  team_id: nullable(str),
  forked_from: { anyOf: [{ type: 'null' }, obj({ id: str, slug: str, name: str })] },
  modules: arrayOf(obj({ key: str, name: str, summary: str, kind: str, depends_on: strings })),
  steps: arrayOf(obj({ key: str, module_key: str, title: str, instructions: str, acceptance: strings })),
  configuration: freeObject,
  design_system: freeObject,
  stars: int,
  forks_count: int,
  module_count: int,
  step_count: int,
  success_rate: nullable(num),
  review_count: int,
  rating_average: nullable(num),
  version: int,
  created_at: str,
  updated_at: str,
});

const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };
const starSchema = obj({ blueprint_id: str, starred: bool, stars: int });

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
    // The id and at least one field.
    input: {
      ...args({ ...blueprintId, name: nameField, description: descriptionField, tags: tagsField, visibility: visibilityField }, ['blueprint_id']),
      minProperties: 2,
    },
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
    output: page({ ...cardSchema, required: [...(cardSchema.required as string[]), 'visibility', 'owner_id', 'team_id'] }),
    readOnly: true,
    handler: (ctx, a) => teamBlueprintsBody(ctx, a.team_id, a),
  }),
  mcpTool<{ blueprint_id: string; team_id: string | null }>({
    name: 'blueprint_transfer',
    description:
      'Move a blueprint you own into a team where you are a member or above, between teams, or out of its team (team_id null; team owner only). Same body as POST /api/blueprints/:id/transfer.',
    input: args(
      {
        ...blueprintId,
        team_id: { type: ['string', 'null'], format: 'uuid', description: 'The receiving team, or null to move it out.' },
      },
      ['blueprint_id', 'team_id'],
    ),
    output: blueprintSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, ...body }) => toBlueprintBody(ctx, await transferBlueprint(ctx, blueprint_id, body)),
  }),
];
