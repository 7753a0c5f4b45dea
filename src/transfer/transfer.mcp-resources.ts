/**
 * Blueprints as MCP resources and the prompts that carry an agent's right first calls (docs/transfer.md).
 * A resource is `blueprint://<id or slug>/AGENTS.md` with the agents-md export as its text; reads follow
 * section 9 exactly (a blueprint the caller may not read is "Resource not found", like one that does not
 * exist). The list holds the caller's own and their teams' blueprints (readable by construction); any
 * other readable blueprint is reached through the template.
 */
import { requireViewer } from '../auth/auth.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import type { McpExtras, McpPromptDefinition, McpResources } from '../mcp/mcp.server';
import type { RequestContext } from '../platform/context';
import { exportBlueprint } from './transfer.service';

const TEMPLATE = 'blueprint://{blueprint}/AGENTS.md';
const uriPattern = /^blueprint:\/\/([^/]{1,200})\/AGENTS\.md$/;
const LIST_LIMIT = 100;

/** The id or slug a resource URI names, or null when it names none (another shape, bad percent-encoding). */
function blueprintRefOf(uri: string): string | null {
  const m = uriPattern.exec(uri);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

export const blueprintResources: McpResources = {
  templates: [
    {
      uriTemplate: TEMPLATE,
      name: 'blueprint',
      title: 'Blueprint as AGENTS.md',
      description: 'A blueprint you may read (id or slug), as the AGENTS.md a coding agent follows.',
      mimeType: 'text/markdown',
    },
  ],
  async list(ctx: RequestContext) {
    const viewer = requireViewer(ctx);
    const rows: Array<{ id: string; slug: string; name: string; description: string }> = await ctx.em.execute(
      `select b.id, b.slug, b.name, b.description from blueprint b
        where b.owner_id = ? or b.team_id in (select team_id from team_member where principal_id = ?)
        order by b.updated_at desc, b.id limit ?`,
      [viewer.principalId, viewer.principalId, LIST_LIMIT],
    );
    return rows.map((r) => ({
      uri: `blueprint://${r.id}/AGENTS.md`,
      name: r.slug,
      title: r.name,
      description: r.description || undefined,
      mimeType: 'text/markdown',
    }));
  },
  async read(ctx: RequestContext, uri: string) {
    const ref = blueprintRefOf(uri);
    if (ref === null) return null;
    let exported;
    try {
      exported = await exportBlueprint(ctx, ref, 'agents-md');
    } catch (err) {
      if ((err as { code?: string }).code === 'NOT_FOUND') return null;
      throw err;
    }
    return { contents: [{ uri, mimeType: 'text/markdown', text: exported.files[0]!.content }] };
  },
};

const text = (t: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: t } }] });

export const blueprintPrompts: McpPromptDefinition[] = [
  {
    prompt: {
      name: 'execute_blueprint',
      title: 'Execute this blueprint',
      description: 'Carry out a blueprint step by step, with the calls that start and walk a run.',
      arguments: [{ name: 'blueprint_id', description: 'A blueprint id or slug you may read.', required: true }],
    },
    async get(ctx, args) {
      const bp = await getBlueprint(ctx, args.blueprint_id!);
      const id = JSON.stringify(bp.id);
      return {
        description: `Execute "${bp.name}"`,
        ...text(
          [
            `Execute the blueprint "${bp.name}" (${bp.stepCount} steps).`,
            `1. Call blueprint_execute_start {blueprint_id: ${id}}. Follow its system_prompt. Its next_token is step 1's own token.`,
            `2. Call blueprint_execute_step {blueprint_id: ${id}, n: 1, token: <next_token>}, carry out the step it answers until its acceptance checks hold.`,
            "3. Then blueprint_execute_step with n + 1 and the latest answer's next_token, and carry out each step, until an answer has dn: true (the run is then completed).",
            '4. If you cannot finish, call execution_report {run_id, status: "failed", notes} saying why.',
          ].join('\n'),
        ),
      };
    },
  },
  {
    prompt: {
      name: 'propose_upstream',
      title: 'Propose my changes upstream',
      description: 'Offer the changes of your fork to the blueprint it was forked from, as a proposal.',
      arguments: [
        { name: 'blueprint_id', description: 'Your fork (id or slug).', required: true },
        { name: 'title', description: 'A title for the proposal.', required: false },
      ],
    },
    async get(ctx, args) {
      const fork = await getBlueprint(ctx, args.blueprint_id!);
      const parent = fork.forkedFrom ? await getBlueprint(ctx, fork.forkedFrom.id).catch(() => null) : null;
      if (!parent)
        return text(
          `"${fork.name}" has no parent you may read, so there is nothing to propose upstream. blueprint_lineage {blueprint_id: ${JSON.stringify(fork.id)}} shows its family.`,
        );
      const title = JSON.stringify(args.title ?? `Changes from ${fork.name}`);
      return {
        description: `Propose "${fork.name}" to "${parent.name}"`,
        ...text(
          [
            `Propose the changes of your fork "${fork.name}" to its parent "${parent.name}".`,
            `1. Call blueprint_compare {blueprint_id: ${JSON.stringify(fork.id)}} to see what the fork changed (ahead) and what the parent changed since (behind).`,
            `2. If the parent moved on, consider upstream_merge (tool_operation_start {tool_type: "upstream_merge", source_blueprint_ids: [${JSON.stringify(fork.id)}]}) first, so the proposal has no conflicts.`,
            `3. Call proposal_open {blueprint_id: ${JSON.stringify(parent.id)}, source_blueprint_id: ${JSON.stringify(fork.id)}, title: ${title}, body: <what the changes do and why>}: blueprint_id is the target, the parent (POST /api/blueprints/${parent.id}/proposals over REST).`,
            '4. proposal_get shows its changes, conflicts and whether it is mergeable; proposal_comment answers review comments.',
          ].join('\n'),
        ),
      };
    },
  },
];

export const transferMcpExtras: McpExtras = { resources: blueprintResources, prompts: blueprintPrompts };
