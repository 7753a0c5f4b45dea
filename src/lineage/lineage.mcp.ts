import { args, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { lineageContract } from './lineage.contract';
import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { forkBlueprint } from './fork.service';
import { forksBody, lineageBody } from './lineage.wire';

const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };

/** Lineage as MCP tools: the same services and body builders as `/api/blueprints/:id/fork`, `/forks` and `/lineage`. */
export const lineageMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_fork',
    description:
      'Fork a blueprint you may read: an independent copy of its plan, owned by you, with its own id and slug and forked_from set. Same body as POST /api/blueprints/:id/fork.',
    input: args(blueprintId, ['blueprint_id']),
    output: lineageContract.fork.response[201],
    readOnly: false,
    handler: async (ctx, a) => toBlueprintBody(ctx, await forkBlueprint(ctx, a.blueprint_id)),
  }),
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'blueprint_forks',
    description:
      'Public forks of a blueprint, oldest first, as cards (name, counts, owner, times; no plan: blueprint_get reads one). Same body as GET /api/blueprints/:id/forks.',
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: lineageContract.forks.response[200],
    readOnly: true,
    handler: (ctx, a) => forksBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_lineage',
    description:
      'Direct parents (forked from, bred from) and children (forks, breed offspring) of a blueprint that you may see. Same body as GET /api/blueprints/:id/lineage.',
    input: args(blueprintId, ['blueprint_id']),
    output: lineageContract.lineage.response[200],
    readOnly: true,
    handler: (ctx, a) => lineageBody(ctx, a.blueprint_id),
  }),
];
