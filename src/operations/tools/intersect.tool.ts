import { intersectPlans } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import type { ToolDefinition } from '../tool-definition';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourcesError } from '../tool-prompts';

interface IntersectState {
  plan: Plan;
  identity?: Identity;
}

/**
 * `intersect` (2 to 10 sources): the modules every source has, as the first has them, with the steps
 * every source has; configuration and design system keep what all agree on. Computed by the server.
 */
export const intersectTool: ToolDefinition<Record<string, never>, IntersectState> = {
  type: 'intersect',
  summary: 'The modules (and steps) common to all sources, by key. Deterministic.',
  sources: { min: 2, max: 10 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState(c) {
    const plan = intersectPlans(c.sources.map((s) => s.plan));
    if (plan.modules.length === 0) throw sourcesError('have no module key in common; the intersection would be empty');
    return { plan };
  },
  steps: () => [
    identityStep<Record<string, never>, IntersectState>({
      summary: (c) =>
        `Intersect ${c.sources.map((s) => `"${s.name}"`).join(', ')}: the server kept the ${c.state.plan.modules.length} module(s) and ${c.state.plan.steps.length} step(s) whose keys all sources share (as the first source has them), and the configuration and design system values all sources agree on.`,
      plan: (c) => c.state.plan,
      defaultName: (c) => `Common core of ${c.sources.map((s) => s.name).join(', ')}`,
      defaultDescription: (c) => `What ${c.sources.map((s) => `"${s.name}"`).join(', ')} have in common.`,
    }),
  ],
  async finish(c) {
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan, identity: c.state.identity! }]);
    return newResult(written, { common_modules: c.state.plan.modules.map((m) => m.key) });
  },
};
