import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { args, argsOf, idArg } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { exportFormat, importInput, transferContract } from './transfer.contract';
import { exportBlueprint, importBlueprint } from './transfer.service';

/** Export and import as MCP tools: the same services and bodies as REST. */
export const transferMcpTools = [
  mcpTool<{ blueprint_id: string; format: string }>({
    name: 'blueprint_export',
    description:
      'A blueprint as the instruction files a coding agent reads: {format, files: [{path, content}]} (AGENTS.md, CLAUDE.md, one .cursor/rules/<module>.mdc per module plus an index, or blueprint.json). Same body as GET /api/blueprints/:id/export.',
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.'), format: exportFormat }, ['blueprint_id', 'format']),
    output: transferContract.export.response[200],
    readOnly: true,
    handler: (ctx, a) => exportBlueprint(ctx, a.blueprint_id, a.format),
  }),
  mcpTool<Record<string, unknown>>({
    name: 'blueprint_import',
    description:
      'Files exported by blueprint_export (possibly edited) as a new blueprint of yours (private unless visibility says otherwise). When their front matter names a blueprint you may read, the new one is a fork of it, and its first version says what the files changed. A file that cannot be read is VALIDATION_FAILED naming the file and line. Same body as POST /api/blueprints/import.',
    input: argsOf({}, importInput),
    output: transferContract.import.response[201],
    readOnly: false,
    handler: async (ctx, a) => toBlueprintBody(ctx, await importBlueprint(ctx, a)),
  }),
];
