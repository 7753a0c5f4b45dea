import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { blueprintBodySchema as blueprintSchema } from '../blueprints/blueprint.contract';
import { args, arrayOf, idArg, obj, str } from '../platform/contract';
import type { JsonSchema } from '../platform/json-schema';
import { mcpTool } from '../platform/mcp-tool';
import { exportFormats } from './transfer.format';
import { exportBlueprint, importBlueprint, importSchema } from './transfer.service';

const format = {
  type: 'string',
  enum: [...exportFormats],
  description: 'agents-md (AGENTS.md), claude-md (CLAUDE.md), cursor-rules (.cursor/rules/*.mdc) or json.',
};

/** Export and import as MCP tools: the same services and bodies as REST. */
export const transferMcpTools = [
  mcpTool<{ blueprint_id: string; format: string }>({
    name: 'blueprint_export',
    description:
      'A blueprint as the instruction files a coding agent reads: {format, files: [{path, content}]} (AGENTS.md, CLAUDE.md, one .cursor/rules/<module>.mdc per module plus an index, or blueprint.json). Same body as GET /api/blueprints/:id/export.',
    input: args({ blueprint_id: idArg('A blueprint id (UUID) or slug.'), format }, ['blueprint_id', 'format']),
    output: obj({ format: str, files: arrayOf(obj({ path: str, content: str })) }),
    readOnly: true,
    handler: (ctx, a) => exportBlueprint(ctx, a.blueprint_id, a.format),
  }),
  mcpTool<Record<string, unknown>>({
    name: 'blueprint_import',
    description:
      'Files exported by blueprint_export (possibly edited) as a new blueprint of yours (private unless visibility says otherwise). When their front matter names a blueprint you may read, the new one is a fork of it, and its first version says what the files changed. A file that cannot be read is VALIDATION_FAILED naming the file and line. Same body as POST /api/blueprints/import.',
    input: args({ ...(importSchema.properties as Record<string, JsonSchema>), format }, ['format', 'files']),
    output: blueprintSchema,
    readOnly: false,
    handler: async (ctx, a) => toBlueprintBody(ctx, await importBlueprint(ctx, a)),
  }),
];
