import { subtractPlans } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import type { ToolDefinition } from '../tool-definition';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourcesError } from '../tool-prompts';

interface SubtractState {
  plan: Plan;
  removed: string[];
  identity?: Identity;
}

/**
 * `subtract` (A, B): the modules of A whose key B lacks, with their steps, on A's configuration and
 * design system. Computed by the server at start; the one step confirms and names the result.
 */
export const subtractTool: ToolDefinition<Record<string, never>, SubtractState> = {
  type: 'subtract',
  summary: 'The modules of the first blueprint that the second lacks (by key), with their steps. Deterministic.',
  sources: { min: 2, max: 2 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState(c) {
    const [a, b] = c.sources as [(typeof c.sources)[0], (typeof c.sources)[0]];
    const plan = subtractPlans(a.plan, b.plan);
    if (plan.modules.length === 0) throw sourcesError(`leave nothing: every module of "${a.name}" is also in "${b.name}"`);
    const kept = new Set(plan.modules.map((m) => m.key));
    return { plan, removed: a.plan.modules.filter((m) => !kept.has(m.key)).map((m) => m.key) };
  },
  steps: () => [
    identityStep<Record<string, never>, SubtractState>({
      summary: (c) =>
        `Subtract "${c.sources[1]!.name}" from "${c.sources[0]!.name}": the server kept the ${c.state.plan.modules.length} module(s) of the first that the second lacks (with their steps, the first's configuration and design system) and removed ${c.state.removed.length}: ${c.state.removed.join(', ') || '(none)'}.`,
      plan: (c) => c.state.plan,
      defaultName: (c) => `${c.sources[0]!.name} without ${c.sources[1]!.name}`,
      defaultDescription: (c) => `The parts of "${c.sources[0]!.name}" that "${c.sources[1]!.name}" does not have.`,
    }),
  ],
  async finish(c) {
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan, identity: c.state.identity!, changes: { modules_removed: c.state.removed } }]);
    return newResult(written, { modules_removed: c.state.removed });
  },
};
