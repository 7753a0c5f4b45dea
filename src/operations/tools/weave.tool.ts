import type { ModuleSource } from '../../lineage/provenance.service';
import { clonePlan, unionPlans } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { keyPattern } from '../../plans/plan.schema';
import { firstStepOutOfOrder, runnableOrder } from '../step-order';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, DependencyGraph, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { planOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface WeaveParams {
  description?: string;
}

interface WeaveState {
  /** The union of the sources, fixed at start: the keys the agent may connect. */
  base: Plan;
  /** For each module of `base`, the index of the source whose version it holds. */
  moduleSource: Record<string, number>;
  /** Module keys several sources hold; the first source's version was kept. */
  shared: string[];
  plan?: Plan;
  added?: Array<{ module: string; depends_on: string }>;
  identity?: Identity;
}

interface WeaveSubmission {
  dependencies: Array<{ module: string; depends_on: string[] }>;
  order?: string[];
}

type Ctx = ToolContext<WeaveParams, WeaveState>;

const keySchema = { type: 'string', pattern: keyPattern, maxLength: 100 };

const connectSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['dependencies'],
  properties: {
    dependencies: {
      type: 'array',
      maxItems: 5000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['module', 'depends_on'],
        properties: { module: keySchema, depends_on: { type: 'array', minItems: 1, items: keySchema, uniqueItems: true } },
      },
    },
    order: { type: 'array', items: keySchema, description: 'Optional run order: every step key of the woven plan, each once.' },
  },
};

/** Adds the agent's cross-module dependencies (refusing any that close a cycle) and applies its run order. */
function weavePlan(c: Ctx, s: WeaveSubmission): WeaveState {
  const plan = clonePlan(c.state.base);
  const modules = new Map(plan.modules.map((m) => [m.key, m]));
  const graph = new DependencyGraph(plan.modules);
  const added: WeaveState['added'] = [];
  s.dependencies.forEach((d, i) => {
    const module = modules.get(d.module);
    if (!module) throw submissionError(`dependencies/${i}/module`, `names no module of the woven plan: "${d.module}"`);
    d.depends_on.forEach((dep, j) => {
      const path = `dependencies/${i}/depends_on/${j}`;
      if (!modules.has(dep)) throw submissionError(path, `names no module of the woven plan: "${dep}"`);
      if (module.dependsOn.includes(dep)) return; // already there: adding it again changes nothing
      const cycle = graph.cycleThrough(d.module, dep);
      if (cycle) throw submissionError(path, `would make a dependency cycle: ${[d.module, ...cycle].join(' -> ')}`);
      graph.add(d.module, dep);
      module.dependsOn.push(dep);
      added.push({ module: d.module, depends_on: dep });
    });
  });
  if (s.order) {
    const steps = new Map(plan.steps.map((st) => [st.key, st]));
    for (const i of repeatedAt(s.order, (k) => k)) throw submissionError(`order/${i}`, `repeats step "${s.order[i]}"`);
    s.order.forEach((k, i) => {
      if (!steps.has(k)) throw submissionError(`order/${i}`, `names no step of the woven plan: "${k}"`);
    });
    const listed = new Set(s.order);
    const missing = plan.steps.filter((st) => !listed.has(st.key)).map((st) => st.key);
    if (missing.length > 0) throw submissionError('order', `must list every step; missing: ${missing.join(', ')}`);
    plan.steps = s.order.map((k) => steps.get(k)!);
    const early = firstStepOutOfOrder(plan);
    if (early >= 0) throw submissionError(`order/${early}`, `runs step "${s.order[early]}" before a step of a module its module depends on`);
  } else plan.steps = runnableOrder(plan);
  assertResultPlan(plan, c.ctx.config.limits);
  return { ...c.state, plan, added };
}

/**
 * `weave` (2 to 10 sources): the union of the plans (steps interleaved in each source's order) plus the
 * cross-module dependencies the agent adds, checked acyclic. A module key several sources hold keeps
 * the first source's version. Provenance: the source of every module.
 */
export const weaveTool: ToolDefinition<WeaveParams, WeaveState> = {
  type: 'weave',
  summary: 'Weave several blueprints into one, connected by cross-module dependencies.',
  sources: { min: 2, max: 10 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: { description: { type: 'string', maxLength: 10_000 } } },
  initialState(c) {
    const plans = c.sources.map((s) => s.plan);
    const { plan } = unionPlans(plans);
    const moduleSource: Record<string, number> = {};
    for (const m of plan.modules) moduleSource[m.key] = plans.findIndex((p) => p.modules.some((x) => x.key === m.key));
    const shared = plan.modules.filter((m) => plans.filter((p) => p.modules.some((x) => x.key === m.key)).length > 1).map((m) => m.key);
    assertResultPlan(plan, c.ctx.config.limits);
    return { base: plan, moduleSource, shared };
  },
  steps: () => [
    {
      title: 'Cross-module dependencies',
      prompt: (c) =>
        [
          `Weave ${c.sources.length} blueprints into one.${c.params.description ? ` Goal: ${c.params.description}` : ''}`,
          '',
          ...c.sources.map(
            (s, i) => `Source ${i + 1}: "${s.name}" (id ${s.id}, slug ${s.slug}): ${s.plan.modules.length} modules, ${s.plan.steps.length} steps`,
          ),
          '',
          `The woven plan the server computed (the union by key; steps interleaved in each source's order${c.state.shared.length > 0 ? `; modules several sources hold keep the first source's version: ${c.state.shared.join(', ')}` : ''}):`,
          planOutline(c.state.base, { json: true, instructions: true, moduleNote: (k) => `from source ${c.state.moduleSource[k]! + 1}` }),
          '',
          'Step 1 of 2: connect the plans. List `dependencies`: for a module, the modules (from any source) it must now depend on, e.g. a frontend of one source on the API of another. Dependencies must not form a cycle. The steps then run in the order above, moved only where a step would run before the steps of a module it depends on. Optionally give `order`, the run order as every step key once, to interleave them differently (it must respect the dependencies).',
        ].join('\n'),
      submissionSchema: connectSchema,
      accept: weavePlan,
    },
    identityStep<WeaveParams, WeaveState>({
      summary: (c) =>
        `Woven from ${c.sources.map((s) => `"${s.name}"`).join(', ')}; dependencies added: ${c.state.added!.map((a) => `${a.module} -> ${a.depends_on}`).join(', ') || '(none)'}.`,
      plan: (c) => c.state.plan!,
      defaultName: (c) => c.sources.map((s) => s.name).join(' + '),
      defaultDescription: (c) => c.params.description ?? `${c.sources.map((s) => `"${s.name}"`).join(', ')} woven into one system.`,
    }),
  ],
  async finish(c) {
    const { plan, identity, added, moduleSource } = c.state;
    const provenance: ModuleSource[] = plan!.modules.map((m) => ({
      moduleKey: m.key,
      sourceBlueprintId: c.sources[moduleSource[m.key]!]!.id,
      sourceModuleKey: m.key,
    }));
    const written = await writeNewBlueprints(c, [{ plan: plan!, identity: identity!, provenance, changes: { dependencies_added: added } }]);
    return newResult(written, {
      dependencies_added: added,
      provenance: provenance.map((p) => ({ module_key: p.moduleKey, source_blueprint_id: p.sourceBlueprintId })),
    });
  },
};
