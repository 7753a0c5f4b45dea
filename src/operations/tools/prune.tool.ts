import { prunePlan, reachableFrom } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { outlineModules } from '../plan-outline';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolContext, ToolDefinition } from '../tool-definition';

interface PruneParams {
  roots?: string[];
}

interface PruneState extends InplaceState {
  roots: string[];
  keep?: string[];
}

type Ctx = ToolContext<PruneParams, PruneState>;

/** The declared roots: `params.roots`, else the plan's `configuration.roots` (a list of module keys). */
function declaredRoots(c: Ctx): { roots: string[]; from: string } | null {
  if (c.params.roots) return { roots: c.params.roots, from: 'params/roots' };
  const configured = c.sources[0]!.plan.configuration.roots;
  if (Array.isArray(configured) && configured.every((r) => typeof r === 'string')) return { roots: configured as string[], from: 'configuration.roots' };
  return null;
}

/** What pruning from `roots` removes: modules and their steps. */
export function pruneOutcome(plan: Plan, roots: string[]) {
  const reach = reachableFrom(plan, roots);
  return {
    modules: plan.modules.filter((m) => !reach.has(m.key)).map((m) => m.key),
    steps: plan.steps.filter((s) => !reach.has(s.moduleKey)).map((s) => s.key),
  };
}

/** `prune`: removes the modules (and their steps) that no declared root needs, directly or not. */
export const pruneTool: ToolDefinition<PruneParams, PruneState> = {
  type: 'prune',
  summary: 'Removes modules and steps unreachable from the declared root modules (a new version).',
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      roots: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        maxItems: 500,
        items: { type: 'string', minLength: 1, maxLength: 100 },
        description: 'Module keys the system is for; defaults to configuration.roots.',
      },
    },
  },
  checkStart(c) {
    const declared = declaredRoots(c);
    if (!declared || declared.roots.length === 0)
      throw invalid(
        'params/roots',
        'is required when the plan declares no configuration.roots',
        'params/roots is required: declare the root modules (or set configuration.roots in the plan)',
      );
    const keys = new Set(c.sources[0]!.plan.modules.map((m) => m.key));
    declared.roots.forEach((r, i) => {
      if (!keys.has(r)) {
        const path = declared.from === 'params/roots' ? `params/roots/${i}` : `configuration/roots/${i}`;
        throw invalid(path, `names no module: "${r}"`, `${path} names no module: "${r}"`);
      }
    });
  },
  async initialState(c) {
    return { ...(await inplaceBase(c)), roots: declaredRoots(c)!.roots };
  },
  steps: () => [
    {
      title: 'Confirm what is removed',
      prompt: (c) => {
        const plan = c.sources[0]!.plan;
        const out = pruneOutcome(plan, c.state.roots);
        return `Blueprint "${c.sources[0]!.name}".\n\nModules:\n${outlineModules(plan)}\n\nRoots: ${c.state.roots.join(', ')}\nUnreachable from the roots, to be removed: modules ${out.modules.join(', ') || '(none)'}; steps ${out.steps.join(', ') || '(none)'}\n\nStep 1 of 1: confirm (an empty "keep" list), or name modules to keep as extra roots (they and what they depend on stay).`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { keep: { type: 'array', uniqueItems: true, maxItems: 500, default: [], items: { type: 'string', minLength: 1, maxLength: 100 } } },
      },
      accept: (c, s: { keep: string[] }) => {
        const keys = new Set(c.sources[0]!.plan.modules.map((m) => m.key));
        s.keep.forEach((k, i) => {
          if (!keys.has(k)) throw invalid(`submission/keep/${i}`, `names no module: "${k}"`);
        });
        return { ...c.state, keep: s.keep };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, (bp) => {
      const roots = [...new Set([...c.state.roots, ...(c.state.keep ?? [])])];
      const removed = pruneOutcome(bp.plan, roots);
      return { plan: prunePlan(bp.plan, roots), details: { roots, removed_modules: removed.modules, removed_steps: removed.steps } };
    }),
};
