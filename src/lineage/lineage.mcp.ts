import { blueprintSchema, cardSchema } from '../blueprints/blueprint.mcp';
import { args, arrayOf, idArg, pageArgs, pageOf, shape, str } from '../mcp/mcp-schema';
import { mcpTool } from '../platform/mcp-tool';
import { forksBody, lineageBody } from './lineage.wire';

const relative = shape({ kind: { type: 'string', enum: ['fork', 'breed'] }, blueprint: cardSchema });

/** Lineage as MCP tools: the same body builders as `/api/blueprints/:id/forks` and `/lineage`. */
export const lineageMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'blueprint_forks',
    description: 'Public forks of a blueprint, oldest first, as full blueprint bodies. Same body as GET /api/blueprints/:id/forks.',
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.'), ...pageArgs }, ['blueprint_id']),
    output: pageOf(blueprintSchema),
    readOnly: true,
    handler: (ctx, a) => forksBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_lineage',
    description:
      'Direct parents (forked from, bred from) and children (forks, breed offspring) of a blueprint that you may see. Same body as GET /api/blueprints/:id/lineage.',
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.') }, ['blueprint_id']),
    output: shape({ blueprint_id: str, parents: arrayOf(relative), children: arrayOf(relative) }),
    readOnly: true,
    handler: (ctx, a) => lineageBody(ctx, a.blueprint_id),
  }),
];
