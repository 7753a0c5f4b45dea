import type { ModuleSource } from '../../lineage/provenance.service';
import { clonePlan, restrictPlan, weaveOrder } from '../../plans/algebra';
import type { Plan, PlanModule } from '../../plans/plan';
import { keyPattern } from '../../plans/plan.schema';
import { runnableOrder } from '../step-order';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, freshKey, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourceOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface SpliceParams {
  description?: string;
}

interface SpliceState {
  plan?: Plan;
  provenance?: ModuleSource[];
  inserted?: Array<{ key: string; as: string }>;
  renamedSteps?: Array<{ from: string; key: string }>;
  droppedDependencies?: Array<{ module: string; depends_on: string }>;
  identity?: Identity;
}

interface SpliceSubmission {
  modules: Array<{ key: string; as?: string }>;
}

type Ctx = ToolContext<SpliceParams, SpliceState>;

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
        required: ['key'],
        properties: {
          key: { type: 'string', pattern: keyPattern, maxLength: 100, description: 'A module key of the donor.' },
          as: { type: 'string', pattern: keyPattern, maxLength: 100, description: 'Its key in the result; needed when the host already has the donor key.' },
        },
      },
    },
  },
};

/**
 * Host plus the chosen donor modules with their steps. A donor module's dependency on a module not
 * chosen binds to the host's module of that key when there is one, and is dropped otherwise.
 */
function splicePlan(c: Ctx, s: SpliceSubmission): SpliceState {
  const [host, donor] = [c.sources[0]!, c.sources[1]!];
  const hostKeys = new Set(host.plan.modules.map((m) => m.key));
  const donorModules = new Map(donor.plan.modules.map((m) => [m.key, m]));
  for (const i of repeatedAt(s.modules, (m) => m.key)) throw submissionError(`modules/${i}/key`, `chooses donor module "${s.modules[i]!.key}" twice`);
  const target = new Map<string, string>();
  s.modules.forEach((m, i) => {
    if (!donorModules.has(m.key)) throw submissionError(`modules/${i}/key`, `the donor "${donor.name}" has no module "${m.key}"`);
    const as = m.as ?? m.key;
    if (hostKeys.has(as))
      throw submissionError(
        `modules/${i}/${m.as ? 'as' : 'key'}`,
        `the host "${host.name}" already has a module "${as}"; give the donor module another key with \`as\``,
      );
    if ([...target.values()].includes(as)) throw submissionError(`modules/${i}/as`, `two donor modules would both get the key "${as}"`);
    target.set(m.key, as);
  });

  const dropped: SpliceState['droppedDependencies'] = [];
  const donorPart = restrictPlan(donor.plan, target.keys());
  const inserted: PlanModule[] = s.modules.map(({ key }) => {
    const original = donorModules.get(key)!;
    const dependsOn: string[] = [];
    for (const d of original.dependsOn) {
      if (target.has(d)) dependsOn.push(target.get(d)!);
      else if (hostKeys.has(d)) dependsOn.push(d);
      else dropped.push({ module: target.get(key)!, depends_on: d });
    }
    return { ...donorPart.modules.find((m) => m.key === key)!, key: target.get(key)!, dependsOn };
  });

  const base = clonePlan(host.plan);
  const hostStepKeys = new Set(base.steps.map((st) => st.key));
  const taken = new Set(hostStepKeys);
  const renamed: SpliceState['renamedSteps'] = [];
  const newKey = new Map<string, string>();
  const donorSteps = donorPart.steps.map((st) => {
    const key = freshKey(st.key, taken);
    if (key !== st.key) renamed.push({ from: st.key, key });
    newKey.set(st.key, key);
    return { ...st, key, moduleKey: target.get(st.moduleKey)! };
  });
  // Donor steps keep their donor order; a donor step the host also has anchors its neighbours next to the host's.
  const donorOrder = donor.plan.steps.flatMap((st) => (target.has(st.moduleKey) ? [newKey.get(st.key)!] : hostStepKeys.has(st.key) ? [st.key] : []));
  const byKey = new Map([...base.steps, ...donorSteps].map((st) => [st.key, st]));
  const order = weaveOrder(
    base.steps.map((st) => st.key),
    donorOrder,
  );
  const modules = [...base.modules, ...inserted];
  const plan: Plan = { ...base, modules, steps: runnableOrder({ modules, steps: order.map((k) => byKey.get(k)!) }) };
  assertResultPlan(plan, c.ctx.config.limits);
  const provenance: ModuleSource[] = [
    ...base.modules.map((m) => ({ moduleKey: m.key, sourceBlueprintId: host.id, sourceModuleKey: m.key })),
    ...s.modules.map((m) => ({ moduleKey: target.get(m.key)!, sourceBlueprintId: donor.id, sourceModuleKey: m.key })),
  ];
  return {
    ...c.state,
    plan,
    provenance,
    inserted: s.modules.map((m) => ({ key: m.key, as: target.get(m.key)! })),
    renamedSteps: renamed,
    droppedDependencies: dropped,
  };
}

/**
 * `splice` (host, donor): the host with chosen donor modules, and their steps, inserted. The host keeps
 * its configuration and design system. Provenance: host modules from the host, inserted ones from the donor.
 */
export const spliceTool: ToolDefinition<SpliceParams, SpliceState> = {
  type: 'splice',
  summary: 'Splice chosen modules (with their steps) of a donor blueprint into a host blueprint.',
  sources: { min: 2, max: 2 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: { description: { type: 'string', maxLength: 10_000 } } },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Choose donor modules',
      prompt: (c) =>
        [
          `Splice: the first source is the host, the second the donor.${c.params.description ? ` Goal: ${c.params.description}` : ''}`,
          '',
          `HOST — ${sourceOutline(c.sources[0]!, 0, { json: true })}`,
          '',
          `DONOR — ${sourceOutline(c.sources[1]!, 1, { instructions: true })}`,
          '',
          "Step 1 of 2: choose the donor modules to insert into the host; each comes with the donor's steps for it, in the donor's order after the host's steps (next to any step key the host shares with the donor). A donor key the host already uses needs a new key in `as`. A donor module's dependency on a donor module you do not choose binds to the host's module of the same key when the host has one, and is dropped otherwise. The host keeps its configuration and design system.",
        ].join('\n'),
      submissionSchema: chooseSchema,
      accept: splicePlan,
    },
    identityStep<SpliceParams, SpliceState>({
      summary: (c) =>
        `"${c.sources[0]!.name}" with ${c.state.inserted!.map((m) => (m.as === m.key ? m.key : `${m.key} (as ${m.as})`)).join(', ')} from "${c.sources[1]!.name}".` +
        (c.state.renamedSteps!.length > 0
          ? ` Donor steps renamed to keep keys unique: ${c.state.renamedSteps!.map((r) => `${r.from} -> ${r.key}`).join(', ')}.`
          : '') +
        (c.state.droppedDependencies!.length > 0
          ? ` Dependencies dropped: ${c.state.droppedDependencies!.map((d) => `${d.module} -> ${d.depends_on}`).join(', ')}.`
          : ''),
      plan: (c) => c.state.plan!,
      defaultName: (c) => `${c.sources[0]!.name} + ${c.sources[1]!.name}`,
      defaultDescription: (c) => c.params.description ?? `"${c.sources[0]!.name}" with modules spliced in from "${c.sources[1]!.name}".`,
    }),
  ],
  async finish(c) {
    const { plan, identity, provenance, inserted, renamedSteps, droppedDependencies } = c.state;
    const written = await writeNewBlueprints(c, [
      {
        plan: plan!,
        identity: identity!,
        provenance,
        changes: { host: c.sources[0]!.id, donor: c.sources[1]!.id, inserted, renamed_steps: renamedSteps, dropped_dependencies: droppedDependencies },
      },
    ]);
    return newResult(written, { inserted, renamed_steps: renamedSteps, dropped_dependencies: droppedDependencies });
  },
};
