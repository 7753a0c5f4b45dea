import type { Blueprint } from '../../blueprints/blueprint.entity';
import type { ModuleSource } from '../../lineage/provenance.service';
import { changedModuleFields, changedStepFields, cloneJson, unionPlans, weaveOrder, type Conflict } from '../../plans/algebra';
import type { JsonObject, Plan, PlanModule, PlanStep } from '../../plans/plan';
import { keyPattern } from '../../plans/plan.schema';
import { runnableOrder } from '../step-order';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, DependencyGraph, freshKey, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourcesOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface BreedParams {
  description?: string;
}

interface BreedState {
  plan?: Plan;
  provenance?: ModuleSource[];
  renamedSteps?: Array<{ from: string; source_blueprint_id: string; key: string }>;
  droppedDependencies?: Array<{ module: string; depends_on: string }>;
  identity?: Identity;
}

interface BreedSubmission {
  modules: Array<{ key: string; from: string }>;
  configuration_from?: string;
  design_system_from?: string;
}

type Ctx = ToolContext<BreedParams, BreedState>;

/** A source named by id or slug, as the prompt shows both. */
function sourceIndex(sources: readonly Blueprint[], ref: string): number {
  const lower = ref.toLowerCase();
  return sources.findIndex((s) => s.id === lower || s.slug === ref);
}

function describeConflict(conflict: Conflict, sources: readonly Blueprint[]): string {
  const holders = conflict.variants.map((v) => `source ${v.source + 1} ("${sources[v.source]!.name}")`).join(', ');
  if (conflict.kind === 'module' || conflict.kind === 'step') {
    const [first, ...rest] = conflict.variants.map((v) => v.value) as Array<PlanModule & PlanStep>;
    const fields = new Set(rest.flatMap((other) => (conflict.kind === 'module' ? changedModuleFields(first!, other) : changedStepFields(first!, other))));
    return `- ${conflict.kind} "${conflict.key}" differs (${[...fields].join(', ')}) between ${holders}`;
  }
  const values = conflict.variants.map((v) => `source ${v.source + 1}: ${JSON.stringify(v.value)}`).join('; ');
  return `- ${conflict.kind === 'configuration' ? 'configuration' : 'design system'} "${conflict.key}": ${values}`;
}

function choosePrompt(c: Ctx): string {
  const { conflicts } = unionPlans(c.sources.map((s) => s.plan));
  const moduleConflicts = conflicts.filter((x) => x.kind === 'module' || x.kind === 'step');
  const jsonConflicts = conflicts.filter((x) => x.kind === 'configuration' || x.kind === 'designSystem');
  return [
    `Breed ${c.sources.length} parents into one offspring.${c.params.description ? ` Goal: ${c.params.description}` : ''}`,
    '',
    sourcesOutline(c.sources, { json: true, instructions: true }),
    '',
    moduleConflicts.length > 0
      ? `Conflicts between the parents (the same key with different content):\n${moduleConflicts.map((x) => describeConflict(x, c.sources)).join('\n')}`
      : 'The parents hold no conflicting modules or steps.',
    jsonConflicts.length > 0
      ? `Configuration and design system values the parents disagree on:\n${jsonConflicts.map((x) => describeConflict(x, c.sources)).join('\n')}`
      : '',
    '',
    "Step 1 of 2: choose the offspring's modules. For each module give its key and `from`, the id (or slug) of the parent to take it from; the module comes with that parent's steps for it (run order: the parents' orders woven together, a step never before the steps of a module it depends on). A module key held by several parents resolves its conflict by the parent you name. Take at least one module from every parent. Dependencies on modules you do not choose are dropped; the chosen modules must not depend on each other in a cycle.",
    "Optionally set `configuration_from` and `design_system_from` to a parent id to take that parent's section whole; by default the sections are merged, earlier parents winning where they disagree.",
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
}

const chooseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['modules'],
  properties: {
    modules: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'from'],
        properties: {
          key: { type: 'string', pattern: keyPattern, maxLength: 100 },
          from: { type: 'string', minLength: 1, maxLength: 200, description: 'The id (or slug) of the parent to take the module from.' },
        },
      },
    },
    configuration_from: { type: 'string', minLength: 1, maxLength: 200 },
    design_system_from: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

/** Builds the offspring from the agent's choices, naming the submission item behind any problem. */
function breedPlan(c: Ctx, s: BreedSubmission): BreedState {
  const { sources } = c;
  for (const i of repeatedAt(s.modules, (m) => m.key)) throw submissionError(`modules/${i}/key`, `chooses module "${s.modules[i]!.key}" twice`);
  const chosenFrom = new Map<string, number>();
  s.modules.forEach((m, i) => {
    const p = sourceIndex(sources, m.from);
    if (p < 0) throw submissionError(`modules/${i}/from`, `is not one of the parents: ${JSON.stringify(m.from)}`);
    if (!sources[p]!.plan.modules.some((x) => x.key === m.key))
      throw submissionError(`modules/${i}/key`, `parent "${sources[p]!.name}" has no module "${m.key}"`);
    chosenFrom.set(m.key, p);
  });
  sources.forEach((src, p) => {
    if (![...chosenFrom.values()].includes(p))
      throw submissionError('modules', `takes no module from parent ${p + 1} ("${src.name}"); an offspring takes something from every parent`);
  });

  const dropped: BreedState['droppedDependencies'] = [];
  const graph = new DependencyGraph();
  const moduleOf = (key: string) => sources[chosenFrom.get(key)!]!.plan.modules.find((m) => m.key === key)!;
  s.modules.forEach((choice, i) => {
    for (const dep of moduleOf(choice.key).dependsOn) {
      if (!chosenFrom.has(dep)) {
        dropped.push({ module: choice.key, depends_on: dep });
        continue;
      }
      const cycle = graph.cycleThrough(choice.key, dep);
      if (cycle)
        throw submissionError(
          `modules/${i}/from`,
          `taking "${choice.key}" from "${sources[chosenFrom.get(choice.key)!]!.name}" makes a dependency cycle: ${[choice.key, ...cycle].join(' -> ')}`,
        );
      graph.add(choice.key, dep);
    }
  });

  const moduleOrder = sources
    .reduce<string[]>(
      (order, src) =>
        weaveOrder(
          order,
          src.plan.modules.map((m) => m.key),
        ),
      [],
    )
    .filter((k) => chosenFrom.has(k));
  const modules: PlanModule[] = moduleOrder.map((key) => {
    const m = cloneJson(moduleOf(key));
    return { ...m, dependsOn: m.dependsOn.filter((d) => chosenFrom.has(d)) };
  });

  // Each parent brings its steps for the modules taken from it; a step key another parent already brought is renamed.
  const taken = new Set<string>();
  const renamed: BreedState['renamedSteps'] = [];
  const stepsBySource = sources.map((src, p) =>
    src.plan.steps
      .filter((st) => chosenFrom.get(st.moduleKey) === p)
      .map((st) => {
        const key = freshKey(st.key, taken);
        if (key !== st.key) renamed.push({ from: st.key, source_blueprint_id: src.id, key });
        return { ...cloneJson(st), key };
      }),
  );
  const byKey = new Map(stepsBySource.flat().map((st) => [st.key, st]));
  const stepOrder = stepsBySource.reduce<string[]>(
    (order, list) =>
      weaveOrder(
        order,
        list.map((st) => st.key),
      ),
    [],
  );

  const section = (field: 'configuration_from' | 'design_system_from', pick: (p: Plan) => JsonObject, merged: JsonObject): JsonObject => {
    const ref = s[field];
    if (ref === undefined) return merged;
    const p = sourceIndex(sources, ref);
    if (p < 0) throw submissionError(field, `is not one of the parents: ${JSON.stringify(ref)}`);
    return cloneJson(pick(sources[p]!.plan));
  };
  const union = unionPlans(sources.map((src) => src.plan)).plan;
  const plan: Plan = {
    modules,
    steps: runnableOrder({ modules, steps: stepOrder.map((k) => byKey.get(k)!) }),
    configuration: section('configuration_from', (p) => p.configuration, union.configuration),
    designSystem: section('design_system_from', (p) => p.designSystem, union.designSystem),
  };
  assertResultPlan(plan, c.ctx.config.limits);
  const provenance = moduleOrder.map((key) => ({ moduleKey: key, sourceBlueprintId: sources[chosenFrom.get(key)!]!.id, sourceModuleKey: key }));
  return { ...c.state, plan, provenance, renamedSteps: renamed, droppedDependencies: dropped };
}

/**
 * `breed` (2 to 5 parents): an offspring whose modules the agent picks from the parents, each with
 * that parent's steps; the union's conflicts are shown so the choice resolves them. Lineage: a breed
 * link from every parent; provenance: the parent of every module.
 */
export const breedTool: ToolDefinition<BreedParams, BreedState> = {
  type: 'breed',
  summary: 'Breed 2 to 5 blueprints: an offspring taking chosen modules (with their steps) from each parent.',
  sources: { min: 2, max: 5 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: { description: { type: 'string', maxLength: 10_000 } } },
  initialState: () => ({}),
  steps: () => [
    { title: 'Choose modules', prompt: choosePrompt, submissionSchema: chooseSchema, accept: breedPlan },
    identityStep<BreedParams, BreedState>({
      summary: (c) =>
        `Offspring of ${c.sources.map((s) => `"${s.name}"`).join(' × ')}: ${c.state.provenance!.map((p) => `${p.moduleKey} from source ${c.sources.findIndex((s) => s.id === p.sourceBlueprintId) + 1}`).join(', ')}.` +
        (c.state.renamedSteps!.length > 0
          ? ` Steps renamed to keep keys unique: ${c.state.renamedSteps!.map((r) => `${r.from} -> ${r.key}`).join(', ')}.`
          : '') +
        (c.state.droppedDependencies!.length > 0
          ? ` Dependencies dropped (module not chosen): ${c.state.droppedDependencies!.map((d) => `${d.module} -> ${d.depends_on}`).join(', ')}.`
          : ''),
      plan: (c) => c.state.plan!,
      defaultName: (c) => c.sources.map((s) => s.name).join(' × '),
      defaultDescription: (c) => c.params.description ?? `Offspring of ${c.sources.map((s) => `"${s.name}"`).join(', ')}.`,
    }),
  ],
  async finish(c) {
    const { plan, identity, provenance, renamedSteps, droppedDependencies } = c.state;
    const written = await writeNewBlueprints(c, [
      { plan: plan!, identity: identity!, provenance, changes: { renamed_steps: renamedSteps, dropped_dependencies: droppedDependencies } },
    ]);
    return newResult(written, {
      provenance: provenance!.map((p) => ({ module_key: p.moduleKey, source_blueprint_id: p.sourceBlueprintId })),
      renamed_steps: renamedSteps,
      dropped_dependencies: droppedDependencies,
    });
  },
};
