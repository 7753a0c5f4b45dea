import { args, arrayOf, freeObject, idArg, obj, str } from '../platform/contract';
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
    output: obj({
      blueprint_id: str,
      parent: obj({ id: str, slug: str, name: str }),
      base_version: { type: ['integer', 'null'] },
      parent_version: { type: ['integer', 'null'] },
      status: { type: 'string', enum: ['identical', 'ahead', 'behind', 'diverged'] },
      ahead: freeObject,
      behind: freeObject,
      modules: arrayOf(freeObject),
      steps: arrayOf(freeObject),
    }),
    readOnly: true,
    handler: async (ctx, a) => toComparisonBody(await compareWithParent(ctx, a.blueprint_id)),
  }),
];
