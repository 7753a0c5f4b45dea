import { args, argsOf, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { changelogContract, changelogInputs } from './changelog.contract';
import { publishChangelogEntry, updateChangelogEntry } from './changelog.service';
import { changelogPageBody, toChangelogBody } from './changelog.wire';

const entrySchema = changelogContract.publish.response[201];
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };

/** Changelogs as MCP tools: the same services and bodies as `/api/blueprints/:id/changelog`. */
export const changelogMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'changelog_list',
    description: "A blueprint's changelog, newest first. Same body as GET /api/blueprints/:id/changelog.",
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: changelogContract.list.response[200],
    readOnly: true,
    handler: (ctx, a) => changelogPageBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<{ blueprint_id: string; title: string; body: string }>({
    name: 'changelog_publish',
    description:
      'Publish a changelog entry on a blueprint you own (it sends no broadcast: use broadcast_send to tell forkers). Same body as POST /api/blueprints/:id/changelog.',
    input: (limits) => argsOf(blueprintId, changelogInputs(limits).publish),
    output: entrySchema,
    readOnly: false,
    handler: async (ctx, { blueprint_id, ...fields }) => toChangelogBody(await publishChangelogEntry(ctx, blueprint_id, fields)),
  }),
  mcpTool<{ blueprint_id: string; entry_id: string; title?: string; body?: string }>({
    name: 'changelog_update',
    description: 'Change the title and/or body of a changelog entry on a blueprint you own. Same body as PATCH /api/blueprints/:id/changelog/:entryId.',
    input: (limits) => argsOf({ ...blueprintId, entry_id: idArg('The entry id.') }, changelogInputs(limits).update),
    output: entrySchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, entry_id, ...fields }) => toChangelogBody(await updateChangelogEntry(ctx, blueprint_id, entry_id, fields)),
  }),
];
