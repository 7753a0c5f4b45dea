import { diffPlans, mutatePlan } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import type { ToolDefinition } from '../tool-definition';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';

interface MutateParams {
  seed: number | string;
  rate: number;
}

interface MutateState {
  plan: Plan;
  changes: ReturnType<typeof changeSummary>;
  identity?: Identity;
}

/** What a mutation changed, for the prompt and the result. */
function changeSummary(before: Plan, after: Plan) {
  const d = diffPlans(before, after);
  return { steps_added: d.steps.added, steps_changed: d.steps.changed.map((s) => s.key), steps_reordered: d.steps.reordered };
}

/**
 * `mutate` (1 source; params `seed`, `rate`): a seeded variation of the plan (see `mutatePlan`). Same
 * source, seed and rate: the same plan. Computed by the server; the one step confirms and names it.
 */
export const mutateTool: ToolDefinition<MutateParams, MutateState> = {
  type: 'mutate',
  summary: 'A seeded variation of a blueprint: retitled steps, extra acceptance checks, variant steps, local reorders. Same seed, same result.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['seed'],
    properties: {
      seed: {
        anyOf: [{ type: 'integer' }, { type: 'string', minLength: 1, maxLength: 200 }],
        description: 'Any integer or string; the same seed gives the same mutation.',
      },
      rate: { type: 'number', minimum: 0, maximum: 1, default: 0.3, description: 'Probability of each variation, from 0 (none) to 1.' },
    },
  },
  initialState(c) {
    const plan = mutatePlan(c.sources[0]!.plan, c.params.seed, c.params.rate);
    return { plan, changes: changeSummary(c.sources[0]!.plan, plan) };
  },
  steps: () => [
    identityStep<MutateParams, MutateState>({
      summary: (c) => {
        const s = c.state.changes;
        return `Mutation of "${c.sources[0]!.name}" with seed ${JSON.stringify(c.params.seed)} at rate ${c.params.rate}, computed by the server: steps added ${JSON.stringify(s.steps_added)}, changed ${JSON.stringify(s.steps_changed)}, reordered: ${s.steps_reordered}.`;
      },
      plan: (c) => c.state.plan,
      defaultName: (c) => `${c.sources[0]!.name} (mutation ${String(c.params.seed).slice(0, 40)})`,
      defaultDescription: (c) => `A seeded variation of "${c.sources[0]!.name}" (seed ${JSON.stringify(c.params.seed)}, rate ${c.params.rate}).`,
    }),
  ],
  async finish(c) {
    const summary = c.state.changes;
    const written = await writeNewBlueprints(c, [
      { plan: c.state.plan, identity: c.state.identity!, changes: { seed: c.params.seed, rate: c.params.rate, ...summary } },
    ]);
    return newResult(written, { seed: c.params.seed, rate: c.params.rate, ...summary });
  },
};
