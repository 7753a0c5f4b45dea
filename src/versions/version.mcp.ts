import { anyObject, args, idArg, int, pageArgs, pageOf, shape, str, strOrNull } from '../mcp/mcp-schema';
import { mcpTool } from '../platform/mcp-tool';
import { versionsBody } from './version.wire';

/** Versions as an MCP tool: the same body builder as `GET /api/blueprints/:id/versions`. */
export const versionMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'version_list',
    description:
      "A blueprint's plan history, newest first: number, author, cause (tool type, edit, rollback) and what changed (the owner only). Same body as GET /api/blueprints/:id/versions.",
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.'), ...pageArgs }, ['blueprint_id']),
    output: pageOf(shape({ number: int, created_at: str, author_id: strOrNull, cause: str, changes: anyObject })),
    readOnly: true,
    handler: (ctx, a) => versionsBody(ctx, a.blueprint_id, a),
  }),
];
