import { anyObject, args, arrayOf, idArg, shape, str } from '../mcp/mcp-schema';
import { mcpTool } from '../platform/mcp-tool';
import { compareWithParent } from './compare.service';
import { toComparisonBody } from './compare.wire';

/** Fork comparison as an MCP tool: the same service and body as `GET /api/blueprints/:id/compare`. */
export const compareMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_compare',
    description:
      'A fork against its parent since the fork point: status (identical, ahead, behind, diverged), what the fork changed (ahead), what the parent changed (behind), and per module and step which side changed and whether they conflict. Same body as GET /api/blueprints/:id/compare.',
    input: args({ blueprint_id: idArg('A fork: blueprint id (UUID) or slug.') }, ['blueprint_id']),
    output: shape({
      blueprint_id: str,
      parent: shape({ id: str, slug: str, name: str }),
      base_version: { type: ['integer', 'null'] },
      parent_version: { type: ['integer', 'null'] },
      status: { type: 'string', enum: ['identical', 'ahead', 'behind', 'diverged'] },
      ahead: anyObject,
      behind: anyObject,
      modules: arrayOf(anyObject),
      steps: arrayOf(anyObject),
    }),
    readOnly: true,
    handler: async (ctx, a) => toComparisonBody(await compareWithParent(ctx, a.blueprint_id)),
  }),
];
