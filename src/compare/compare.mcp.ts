import { args, idArg } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { compareContract } from './compare.contract';
import { compareWithParent } from './compare.service';
import { toComparisonBody } from './compare.wire';

/** Fork comparison as an MCP tool: the same service and body as `GET /api/blueprints/:id/compare`. */
export const compareMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_compare',
    description:
      'A fork against its parent since the fork point: status (identical, ahead, behind, diverged), what the fork changed (ahead), what the parent changed (behind), and per module and step which side changed and whether they conflict. Same body as GET /api/blueprints/:id/compare.',
    input: args({ blueprint_id: idArg('A fork: blueprint id (UUID) or slug.') }, ['blueprint_id']),
    output: compareContract.compare.response[200],
    readOnly: true,
    handler: async (ctx, a) => toComparisonBody(await compareWithParent(ctx, a.blueprint_id)),
  }),
];
