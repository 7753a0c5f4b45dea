import { prunePlan } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { keyPattern } from '../../plans/plan.schema';
import type { ToolDefinition } from '../tool-definition';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourceOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface DistillState {
  core?: string[];
  plan?: Plan;
  removed?: string[];
  identity?: Identity;
}

/**
 * `distill` (1 source): the agent names the core modules; the server keeps them and everything they
 * depend on, directly or not (`prunePlan`), and removes the rest with its steps.
 */
export const distillTool: ToolDefinition<Record<string, never>, DistillState> = {
  type: 'distill',
  summary: 'Distill a blueprint to a minimal core: the chosen modules and what they need, nothing else.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Choose the core',
      prompt: (c) =>
        [
          `Distill "${c.sources[0]!.name}" to its minimal core.`,
          '',
          sourceOutline(c.sources[0]!, 0),
          '',
          'Step 1 of 2: list the `core` module keys: the modules the distilled blueprint exists for. The server keeps them and every module they depend on, directly or not, with their steps; all other modules and their steps are removed.',
        ].join('\n'),
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['core'],
        properties: { core: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: keyPattern, maxLength: 100 } } },
      },
      accept: (c, s: { core: string[] }) => {
        const source = c.sources[0]!;
        const keys = new Set(source.plan.modules.map((m) => m.key));
        s.core.forEach((k, i) => {
          if (!keys.has(k)) throw submissionError(`core/${i}`, `names no module of "${source.name}": "${k}"`);
        });
        const plan = prunePlan(source.plan, s.core);
        const kept = new Set(plan.modules.map((m) => m.key));
        return { ...c.state, core: s.core, plan, removed: source.plan.modules.filter((m) => !kept.has(m.key)).map((m) => m.key) };
      },
    },
    identityStep<Record<string, never>, DistillState>({
      summary: (c) =>
        `Core of "${c.sources[0]!.name}" for ${c.state.core!.join(', ')}: kept ${c.state.plan!.modules.map((m) => m.key).join(', ')}; removed ${c.state.removed!.join(', ') || '(nothing: the core needs every module)'}.`,
      plan: (c) => c.state.plan!,
      defaultName: (c) => `${c.sources[0]!.name} (core)`,
      defaultDescription: (c) => `The minimal core of "${c.sources[0]!.name}": ${c.state.core!.join(', ')} and what they need.`,
    }),
  ],
  async finish(c) {
    const changes = { core: c.state.core, modules_removed: c.state.removed };
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan!, identity: c.state.identity!, changes }]);
    return newResult(written, changes);
  },
};
