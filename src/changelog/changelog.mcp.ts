import { defaultLimits } from '../platform/config';
import { args, idArg, obj, page, pageArgs, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { publishChangelogEntry, updateChangelogEntry } from './changelog.service';
import { changelogPageBody, toChangelogBody } from './changelog.wire';

const entrySchema = obj({ id: str, title: str, body: str, created_at: str, updated_at: str });
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };
const title = { type: 'string', minLength: 1, maxLength: defaultLimits.changelogTitleMax, pattern: '\\S' };
const body = { type: 'string', maxLength: defaultLimits.changelogBodyMax };

/** Changelogs as MCP tools: the same services and bodies as `/api/blueprints/:id/changelog`. */
export const changelogMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'changelog_list',
    description: "A blueprint's changelog, newest first. Same body as GET /api/blueprints/:id/changelog.",
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: page(entrySchema),
    readOnly: true,
    handler: (ctx, a) => changelogPageBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<{ blueprint_id: string; title: string; body: string }>({
    name: 'changelog_publish',
    description:
      'Publish a changelog entry on a blueprint you own (it sends no broadcast: use broadcast_send to tell forkers). Same body as POST /api/blueprints/:id/changelog.',
    input: args({ ...blueprintId, title, body }, ['blueprint_id', 'title', 'body']),
    output: entrySchema,
    readOnly: false,
    handler: async (ctx, { blueprint_id, ...fields }) => toChangelogBody(await publishChangelogEntry(ctx, blueprint_id, fields)),
  }),
  mcpTool<{ blueprint_id: string; entry_id: string; title?: string; body?: string }>({
    name: 'changelog_update',
    description: 'Change the title and/or body of a changelog entry on a blueprint you own. Same body as PATCH /api/blueprints/:id/changelog/:entryId.',
    // Both ids and at least one of title and body.
    input: { ...args({ ...blueprintId, entry_id: idArg('The entry id.'), title, body }, ['blueprint_id', 'entry_id']), minProperties: 3 },
    output: entrySchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, entry_id, ...fields }) => toChangelogBody(await updateChangelogEntry(ctx, blueprint_id, entry_id, fields)),
  }),
];
