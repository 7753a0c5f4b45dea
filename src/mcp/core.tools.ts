import { z } from 'zod';
import { forkBlueprint, getBlueprint } from '../blueprints/blueprint.service';
import { toBlueprintBody, toCard } from '../blueprints/blueprint.wire';
import { childrenOf, forksOf, parentsOf } from '../lineage/lineage.service';
import { cancelOperation, getOperation, startOperation, submitStep } from '../operations/operation.service';
import { toOperationBody } from '../operations/operation.wire';
import { pageFromQuery } from '../platform/pagination';
import { breedSuggestions } from '../registry/breed-suggestions.service';
import { parseTags, parseWindowDays, searchRegistry, trending } from '../registry/registry.service';
import { mcpTool } from '../platform/mcp-tool';

const page = { limit: z.number().int().optional(), offset: z.number().int().optional() };

/** Blueprints, lineage, registry and tool operations as MCP tools: the same services as `/api`. */
export const coreMcpTools = [
  mcpTool({
    name: 'blueprint_get',
    description: 'One blueprint (id or slug) with its plan: modules, steps, configuration, design system.',
    input: { blueprint_id: z.string().min(1) },
    readOnly: true,
    handler: async (ctx, a) => toBlueprintBody(ctx, await getBlueprint(ctx, a.blueprint_id)),
  }),
  mcpTool({
    name: 'blueprint_fork',
    description: 'Fork a public blueprint (or one you may read): an independent copy of its plan with its own id and slug and forked_from.',
    input: { blueprint_id: z.string().min(1) },
    readOnly: false,
    handler: async (ctx, a) => toBlueprintBody(ctx, await forkBlueprint(ctx, a.blueprint_id)),
  }),
  mcpTool({
    name: 'blueprint_forks',
    description: 'Public forks of a blueprint, oldest first.',
    input: { blueprint_id: z.string().min(1), ...page },
    readOnly: true,
    handler: async (ctx, a) => {
      const p = pageFromQuery(a, ctx.config.limits);
      const bp = await getBlueprint(ctx, a.blueprint_id);
      const forks = await forksOf(ctx, bp.id, p);
      return { items: forks.items.map(toCard), total: forks.total, ...p };
    },
  }),
  mcpTool({
    name: 'blueprint_lineage',
    description: 'Parents (forked from, bred from) and children (forks, breed offspring) of a blueprint.',
    input: { blueprint_id: z.string().min(1) },
    readOnly: true,
    handler: async (ctx, a) => {
      const bp = await getBlueprint(ctx, a.blueprint_id);
      const [parents, children] = await Promise.all([parentsOf(ctx, bp.id), childrenOf(ctx, bp.id)]);
      return {
        blueprint_id: bp.id,
        parents: parents.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
        children: children.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
      };
    },
  }),
  mcpTool({
    name: 'blueprint_breed_suggestions',
    description: 'Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks.',
    input: { blueprint_id: z.string().min(1), limit: z.number().int().optional() },
    readOnly: true,
    handler: async (ctx, a) => {
      const r = await breedSuggestions(ctx, a.blueprint_id, a.limit);
      return { blueprint_id: r.blueprintId, items: r.items.map((s) => ({ blueprint: toCard(s.blueprint), score: s.score, shared_modules: s.sharedModules, new_modules: s.newModules })) };
    },
  }),
  mcpTool({
    name: 'registry_search',
    description: 'Search public blueprints by keyword (full-text, ranked) and tags (comma-separated, all must match).',
    input: { q: z.string().optional(), tags: z.string().optional(), ...page },
    readOnly: true,
    handler: async (ctx, a) => {
      const p = pageFromQuery(a, ctx.config.limits);
      const r = await searchRegistry(ctx, { q: a.q, tags: parseTags(a.tags) }, p);
      return { items: r.items.map(toCard), total: r.total, ...p };
    },
  }),
  mcpTool({
    name: 'registry_trending',
    description: 'Public blueprints ranked by stars, forks and executions inside the last window_days days.',
    input: { limit: z.number().int().optional(), window_days: z.number().int().optional() },
    readOnly: true,
    handler: async (ctx, a) => {
      const { limit } = pageFromQuery({ limit: a.limit }, ctx.config.limits);
      const windowDays = parseWindowDays(a.window_days);
      const entries = await trending(ctx, windowDays, limit);
      return { window_days: windowDays, items: entries.map((e) => ({ ...toCard(e.blueprint), score: e.score })) };
    },
  }),
  mcpTool({
    name: 'tool_operation_start',
    description: 'Start a tool operation (create, breed, splice, ...). Answers the first prompt, its submission_schema and the step token.',
    input: { tool_type: z.string(), source_blueprint_ids: z.array(z.string()).optional(), params: z.record(z.string(), z.unknown()).optional() },
    readOnly: false,
    handler: async (ctx, a) =>
      toOperationBody(await startOperation(ctx, { toolType: a.tool_type, sourceBlueprintIds: a.source_blueprint_ids, params: a.params }), true),
  }),
  mcpTool({
    name: 'tool_operation_submit',
    description: 'Submit the current step of an operation with its step token. Answers the next prompt and a new token, or the result.',
    input: { operation_id: z.string(), token: z.string(), submission: z.record(z.string(), z.unknown()) },
    readOnly: false,
    handler: async (ctx, a) => toOperationBody(await submitStep(ctx, a.operation_id, a.token, a.submission), true),
  }),
  mcpTool({
    name: 'tool_operation_status',
    description: 'Status, current step and result of one of your operations.',
    input: { operation_id: z.string() },
    readOnly: true,
    handler: async (ctx, a) => toOperationBody(await getOperation(ctx, a.operation_id), false),
  }),
  mcpTool({
    name: 'tool_operation_cancel',
    description: 'Cancel one of your active operations.',
    input: { operation_id: z.string() },
    readOnly: false,
    handler: async (ctx, a) => toOperationBody(await cancelOperation(ctx, a.operation_id), false),
  }),
];
