import { cloneJson } from '../../plans/algebra';
import { stepFromWire, type JsonObject, type Plan, type PlanStep, type WireStep } from '../../plans/plan';
import { freeObjectSchema, stepSchema } from '../../plans/plan.schema';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourceOutline } from '../plan-outline';
import { submissionError } from '../tool-prompts';

interface TransmuteParams {
  language?: string;
  framework?: string;
  notes?: string;
}

interface TransmuteState {
  steps?: PlanStep[];
  plan?: Plan;
  identity?: Identity;
}

type Ctx = ToolContext<TransmuteParams, TransmuteState>;

function target(p: TransmuteParams): string {
  return [p.language, p.framework].filter(Boolean).join(' / ');
}

/** The target stack of the params, which always wins over what the configuration says. */
function targetConfiguration(p: TransmuteParams): JsonObject {
  const out: JsonObject = {};
  if (p.language) out.language = p.language;
  if (p.framework) out.framework = p.framework;
  return out;
}

function rewriteSteps(c: Ctx, s: { steps: WireStep[] }): TransmuteState {
  const source = c.sources[0]!;
  const moduleKeys = new Set(source.plan.modules.map((m) => m.key));
  for (const i of repeatedAt(s.steps, (st) => st.key)) throw submissionError(`steps/${i}/key`, `duplicates step key "${s.steps[i]!.key}"`);
  s.steps.forEach((st, i) => {
    if (!moduleKeys.has(st.module_key))
      throw submissionError(`steps/${i}/module_key`, `names no module of "${source.name}": "${st.module_key}" (transmute keeps the modules)`);
  });
  const covered = new Set(s.steps.map((st) => st.module_key));
  const uncovered = [...new Set(source.plan.steps.map((st) => st.moduleKey))].filter((k) => !covered.has(k));
  if (uncovered.length > 0) throw submissionError('steps', `leaves module(s) without any step: ${uncovered.join(', ')}; port their steps too`);
  const steps = s.steps.map(stepFromWire);
  assertResultPlan({ ...cloneJson(source.plan), steps }, c.ctx.config.limits);
  return { ...c.state, steps };
}

function configure(c: Ctx, s: { configuration: JsonObject }): TransmuteState {
  const source = c.sources[0]!;
  const plan: Plan = {
    modules: cloneJson(source.plan.modules),
    steps: c.state.steps!,
    configuration: { ...cloneJson(source.plan.configuration), ...s.configuration, ...targetConfiguration(c.params) },
    designSystem: cloneJson(source.plan.designSystem),
  };
  assertResultPlan(plan, c.ctx.config.limits);
  return { ...c.state, plan };
}

/**
 * `transmute` (1 source; params `language` and/or `framework`): the same modules with every step
 * rewritten by the agent for the target stack, and the configuration updated (the params' language and
 * framework always win). The result is a fork of the source.
 */
export const transmuteTool: ToolDefinition<TransmuteParams, TransmuteState> = {
  type: 'transmute',
  summary: 'Port a blueprint to another language and/or framework: same modules, steps rewritten.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    anyOf: [
      { type: 'object', properties: { language: true }, required: ['language'] },
      { type: 'object', properties: { framework: true }, required: ['framework'] },
    ],
    properties: {
      language: { type: 'string', minLength: 1, maxLength: 100 },
      framework: { type: 'string', minLength: 1, maxLength: 100 },
      notes: { type: 'string', maxLength: 10_000, description: 'Anything else about the target (runtime, hosting, conventions).' },
    },
  },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Rewrite steps',
      prompt: (c) =>
        [
          `Transmute "${c.sources[0]!.name}" to ${target(c.params)}.${c.params.notes ? ` Notes: ${c.params.notes}` : ''}`,
          '',
          sourceOutline(c.sources[0]!, 0, { instructions: true, json: true }),
          '',
          `Step 1 of 3: rewrite the steps for ${target(c.params)}. Submit the full list of \`steps\` in run order (key, module_key, title, instructions, acceptance): same modules, every module that has steps keeps at least one; you may split, merge or rename steps. Replace tools, libraries and commands of the old stack with their ${target(c.params)} equivalents in instructions and acceptance checks.`,
        ].join('\n'),
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['steps'],
        properties: { steps: { type: 'array', minItems: 1, items: stepSchema } },
      },
      accept: rewriteSteps,
    },
    {
      title: 'Configuration',
      prompt: (c) =>
        [
          `Transmute "${c.sources[0]!.name}" to ${target(c.params)}.`,
          `Current configuration: ${JSON.stringify(c.sources[0]!.plan.configuration)}`,
          '',
          `Step 2 of 3: give the \`configuration\` keys that change for ${target(c.params)} (runtime, package manager, build and test commands, libraries, ...). They are merged over the current configuration; ${JSON.stringify(targetConfiguration(c.params))} is set from the params. Submit {"configuration": {}} to change nothing else.`,
        ].join('\n'),
      submissionSchema: { type: 'object', additionalProperties: false, required: ['configuration'], properties: { configuration: freeObjectSchema } },
      accept: configure,
    },
    identityStep<TransmuteParams, TransmuteState>({
      summary: (c) => `"${c.sources[0]!.name}" ported to ${target(c.params)}.`,
      plan: (c) => c.state.plan!,
      defaultName: (c) => `${c.sources[0]!.name} (${target(c.params)})`,
      defaultDescription: (c) => `"${c.sources[0]!.name}" ported to ${target(c.params)}.${c.sources[0]!.description ? ` ${c.sources[0]!.description}` : ''}`,
    }),
  ],
  async finish(c) {
    const changes = { language: c.params.language ?? null, framework: c.params.framework ?? null };
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan!, identity: c.state.identity!, changes }]);
    return newResult(written, changes);
  },
};
