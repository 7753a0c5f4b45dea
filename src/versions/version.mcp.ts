import { args, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { versionContract } from './version.contract';
import { versionsBody } from './version.wire';
import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { planEditSchema, updateBlueprintPlan, type PlanEditInput } from './plan-edit.service';

/** Versions as an MCP tool: the same body builder as `GET /api/blueprints/:id/versions`. */
export const versionMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'version_list',
    description:
      "A blueprint's plan history, newest first: number, author, cause (tool type, edit, rollback) and what changed (the owner only). Same body as GET /api/blueprints/:id/versions.",
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.'), ...pageArgs }, ['blueprint_id']),
    output: versionContract.list.response[200],
    readOnly: true,
    handler: (ctx, a) => versionsBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<PlanEditInput & { blueprint_id: string }>({
    name: 'blueprint_plan_update',
    description:
      "Replace a blueprint's whole plan (owner or team editor): modules, steps (run order), configuration, design_system, and base_version = the blueprint's `version` when you read it. A stale base_version is CONFLICT with details.current_version (read again, re-apply your change). Same body as PUT /api/blueprints/:id/plan.",
    input: {
      ...planEditSchema,
      properties: { blueprint_id: idArg('A blueprint id (UUID) or slug.'), ...planEditSchema.properties },
      required: ['blueprint_id', ...planEditSchema.required],
    },
    output: versionContract.updatePlan.response[200],
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, ...body }) => toBlueprintBody(ctx, (await updateBlueprintPlan(ctx, blueprint_id, body)).blueprint),
  }),
];
