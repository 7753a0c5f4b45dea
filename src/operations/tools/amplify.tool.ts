import { clonePlan } from '../../plans/algebra';
import type { Plan, PlanStep } from '../../plans/plan';
import { keyPattern, stepSchema } from '../../plans/plan.schema';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourceOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface AmplifyState {
  plan?: Plan;
  expanded?: Array<{ step: string; into: string[] }>;
  identity?: Identity;
}

interface AmplifySubmission {
  expansions: Array<{ step: string; into: Array<{ key: string; title: string; instructions: string; acceptance: string[] }> }>;
}

/** A finer step: the step schema without `module_key`, which the expanded step passes on. */
const finerStepSchema = (() => {
  const { module_key: _dropped, ...properties } = (stepSchema as { properties: Record<string, unknown> }).properties;
  return { ...stepSchema, required: ['key', 'title', 'instructions'], properties };
})();

function amplifyPlan(c: ToolContext<Record<string, never>, AmplifyState>, s: AmplifySubmission): AmplifyState {
  const source = c.sources[0]!;
  const sourceSteps = new Map(source.plan.steps.map((st) => [st.key, st]));
  for (const i of repeatedAt(s.expansions, (e) => e.step)) throw submissionError(`expansions/${i}/step`, `expands step "${s.expansions[i]!.step}" twice`);
  const expansionOf = new Map<string, PlanStep[]>();
  // A finer step may reuse the key of the step it replaces, but no key another step keeps.
  const taken = new Set(source.plan.steps.filter((st) => !s.expansions.some((e) => e.step === st.key)).map((st) => st.key));
  s.expansions.forEach((e, i) => {
    const original = sourceSteps.get(e.step);
    if (!original) throw submissionError(`expansions/${i}/step`, `names no step of "${source.name}": "${e.step}"`);
    expansionOf.set(
      e.step,
      e.into.map((f, j) => {
        if (taken.has(f.key)) throw submissionError(`expansions/${i}/into/${j}/key`, `step key "${f.key}" is already used`);
        taken.add(f.key);
        return { key: f.key, moduleKey: original.moduleKey, title: f.title, instructions: f.instructions, acceptance: [...f.acceptance] };
      }),
    );
  });
  const plan = clonePlan(source.plan);
  plan.steps = plan.steps.flatMap((st) => expansionOf.get(st.key) ?? [st]);
  assertResultPlan(plan, c.ctx.config.limits);
  return { ...c.state, plan, expanded: s.expansions.map((e) => ({ step: e.step, into: e.into.map((f) => f.key) })) };
}

/**
 * `amplify` (1 source): the same modules with steps expanded into finer, more detailed ones: the agent
 * replaces chosen steps by two or more finer steps each (in place, same module); other steps stay.
 */
export const amplifyTool: ToolDefinition<Record<string, never>, AmplifyState> = {
  type: 'amplify',
  summary: 'Amplify a blueprint: steps expanded into finer, more detailed steps; modules unchanged.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Expand steps',
      prompt: (c) =>
        [
          `Amplify "${c.sources[0]!.name}": make its steps finer and more detailed.`,
          '',
          sourceOutline(c.sources[0]!, 0, { instructions: true }),
          '',
          "Step 1 of 2: give `expansions`: for each step to expand (ideally every coarse one, module by module), its key in `step` and `into`, two or more finer steps (key, title, instructions, acceptance) that together do what it did, in run order. They take its place and its module. A finer step may reuse the expanded step's key, never another step's. Steps you do not expand stay as they are.",
        ].join('\n'),
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['expansions'],
        properties: {
          expansions: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['step', 'into'],
              properties: { step: { type: 'string', pattern: keyPattern, maxLength: 100 }, into: { type: 'array', minItems: 2, items: finerStepSchema } },
            },
          },
        },
      },
      accept: amplifyPlan,
    },
    identityStep<Record<string, never>, AmplifyState>({
      summary: (c) => `"${c.sources[0]!.name}" amplified: ${c.state.expanded!.map((e) => `${e.step} -> ${e.into.join(', ')}`).join('; ')}.`,
      plan: (c) => c.state.plan!,
      defaultName: (c) => `${c.sources[0]!.name} (detailed)`,
      defaultDescription: (c) => `"${c.sources[0]!.name}" with finer, more detailed steps.`,
    }),
  ],
  async finish(c) {
    const changes = { steps_expanded: c.state.expanded };
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan!, identity: c.state.identity!, changes }]);
    return newResult(written, changes);
  },
};
