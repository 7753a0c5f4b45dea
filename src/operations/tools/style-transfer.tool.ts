import type { ModuleSource } from '../../lineage/provenance.service';
import { clonePlan, cloneJson } from '../../plans/algebra';
import type { JsonObject, Plan } from '../../plans/plan';
import { freeObjectSchema, keyPattern } from '../../plans/plan.schema';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { assertResultPlan, repeatedAt } from '../tool-checks';
import { identityStep, newResult, writeNewBlueprints, type Identity } from '../tool-output';
import { sourceOutline } from '../plan-outline';
import { sourcesError, submissionError } from '../tool-prompts';

interface StyleState {
  plan?: Plan;
  adapted?: string[];
  identity?: Identity;
}

interface AdaptSubmission {
  design_system_overrides?: JsonObject;
  step_updates?: Array<{ key: string; title?: string; instructions?: string; acceptance?: string[] }>;
}

type Ctx = ToolContext<Record<string, never>, StyleState>;

/** The plan of the first source with the design system of the second, before the agent's adjustments. */
function transferred(c: Ctx): Plan {
  return { ...clonePlan(c.sources[0]!.plan), designSystem: cloneJson(c.sources[1]!.plan.designSystem) };
}

function adapt(c: Ctx, s: AdaptSubmission): StyleState {
  const plan = transferred(c);
  plan.designSystem = { ...plan.designSystem, ...cloneJson(s.design_system_overrides ?? {}) };
  const updates = s.step_updates ?? [];
  for (const i of repeatedAt(updates, (u) => u.key)) throw submissionError(`step_updates/${i}/key`, `updates step "${updates[i]!.key}" twice`);
  const steps = new Map(plan.steps.map((st) => [st.key, st]));
  updates.forEach((u, i) => {
    const step = steps.get(u.key);
    if (!step) throw submissionError(`step_updates/${i}/key`, `names no step of "${c.sources[0]!.name}": "${u.key}"`);
    if (u.title !== undefined) step.title = u.title;
    if (u.instructions !== undefined) step.instructions = u.instructions;
    if (u.acceptance !== undefined) step.acceptance = [...u.acceptance];
  });
  assertResultPlan(plan, c.ctx.config.limits);
  return { ...c.state, plan, adapted: updates.map((u) => u.key) };
}

/**
 * `style_transfer` (content, style): the plan of the first source with the design system of the second.
 * The server transfers it; the agent may adjust the design system and adapt steps that describe the
 * old look. Provenance: every module from the first source.
 */
export const styleTransferTool: ToolDefinition<Record<string, never>, StyleState> = {
  type: 'style_transfer',
  summary: 'The plan of the first blueprint with the design system of the second.',
  sources: { min: 2, max: 2 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  checkStart(c) {
    if (Object.keys(c.sources[1]!.plan.designSystem).length === 0)
      throw sourcesError(`"${c.sources[1]!.name}" has an empty design system; there is no style to transfer`, 1);
  },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Adapt to the new design system',
      prompt: (c) =>
        [
          `Style transfer: the content of "${c.sources[0]!.name}" with the design system of "${c.sources[1]!.name}".`,
          '',
          `CONTENT — ${sourceOutline(c.sources[0]!, 0, { instructions: true, json: true })}`,
          '',
          `STYLE — the design system of "${c.sources[1]!.name}", which replaces the one above: ${JSON.stringify(c.sources[1]!.plan.designSystem)}`,
          '',
          'Step 1 of 2: adapt. Optionally give `design_system_overrides` (top-level keys replacing those of the transferred design system) and `step_updates`: for steps whose title, instructions or acceptance describe the old look (colours, fonts, components), the key and the new text. Submit {} to take the transfer as is.',
        ].join('\n'),
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          design_system_overrides: freeObjectSchema,
          step_updates: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['key'],
              properties: {
                key: { type: 'string', pattern: keyPattern, maxLength: 100 },
                title: { type: 'string', minLength: 1, maxLength: 300 },
                instructions: { type: 'string', maxLength: 50_000 },
                acceptance: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2000 } },
              },
            },
          },
        },
      },
      accept: adapt,
    },
    identityStep<Record<string, never>, StyleState>({
      summary: (c) => `"${c.sources[0]!.name}" in the style of "${c.sources[1]!.name}"; steps adapted: ${c.state.adapted!.join(', ') || '(none)'}.`,
      plan: (c) => c.state.plan!,
      defaultName: (c) => `${c.sources[0]!.name} in the style of ${c.sources[1]!.name}`,
      defaultDescription: (c) => `"${c.sources[0]!.name}" with the design system of "${c.sources[1]!.name}".`,
    }),
  ],
  async finish(c) {
    const [content, style] = [c.sources[0]!, c.sources[1]!];
    const provenance: ModuleSource[] = c.state.plan!.modules.map((m) => ({ moduleKey: m.key, sourceBlueprintId: content.id, sourceModuleKey: m.key }));
    const changes = { content_from: content.id, design_system_from: style.id, steps_adapted: c.state.adapted };
    const written = await writeNewBlueprints(c, [{ plan: c.state.plan!, identity: c.state.identity!, provenance, changes }]);
    return newResult(written, changes);
  },
};
