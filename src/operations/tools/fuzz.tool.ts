import { cloneJson } from '../../plans/algebra';
import { invalid } from '../../platform/errors';
import { outlineModules, outlineSteps } from '../plan-outline';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolDefinition } from '../tool-definition';

interface FuzzState extends InplaceState {
  /** step key -> the new checks for it (only ones the step does not have yet). */
  checks?: Record<string, string[]>;
}

const checkSchema = { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' };

/** `fuzz`: edge-case and adversarial acceptance checks proposed per step by the agent, validated and added by the server. */
export const fuzzTool: ToolDefinition<Record<string, never>, FuzzState> = {
  type: 'fuzz',
  summary: 'Adds edge-case and adversarial acceptance checks to the steps of a blueprint (a new version).',
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: (c) => inplaceBase(c),
  steps: () => [
    {
      title: 'Propose edge-case checks per step',
      prompt: (c) => {
        const plan = c.sources[0]!.plan;
        return `Blueprint "${c.sources[0]!.name}".\n\nModules:\n${outlineModules(plan)}\n\nSteps, with their current acceptance checks:\n${outlineSteps(plan, { instructions: true })}\n\nStep 1 of 1: for the steps where it matters, propose acceptance checks that probe edge cases and adversarial use: boundary and empty values, huge or malformed input, concurrent requests, a dependency that is slow or down, retries and duplicates, hostile input (injection, path traversal, oversized payloads). Each check must be verifiable by whoever executes the step. Name steps by key; checks a step already has are ignored. The server appends the new checks to the steps and writes a new version of the blueprint.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['checks'],
        properties: {
          checks: {
            type: 'array',
            minItems: 1,
            maxItems: 5000,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['step_key', 'acceptance'],
              properties: {
                step_key: { type: 'string', minLength: 1, maxLength: 100 },
                acceptance: { type: 'array', minItems: 1, maxItems: 50, items: checkSchema },
              },
            },
          },
        },
      },
      accept: (c, s: { checks: Array<{ step_key: string; acceptance: string[] }> }) => {
        const steps = new Map(c.sources[0]!.plan.steps.map((st) => [st.key, st]));
        const added: Record<string, string[]> = {};
        const seenKeys = new Set<string>();
        s.checks.forEach((entry, i) => {
          const step = steps.get(entry.step_key);
          if (!step)
            throw invalid(
              `submission/checks/${i}/step_key`,
              `names no step: "${entry.step_key}"`,
              `submission/checks/${i}/step_key names no step of this blueprint: "${entry.step_key}"`,
            );
          if (seenKeys.has(entry.step_key))
            throw invalid(
              `submission/checks/${i}/step_key`,
              'repeats a step',
              `submission/checks/${i}/step_key repeats step "${entry.step_key}"; give each step once`,
            );
          seenKeys.add(entry.step_key);
          const have = new Set(step.acceptance);
          const fresh = [...new Set(entry.acceptance.map((a) => a.trim()))].filter((a) => !have.has(a));
          if (fresh.length > 0) added[entry.step_key] = fresh;
        });
        if (Object.keys(added).length === 0)
          throw invalid('submission/checks', 'adds no new check', 'submission/checks adds no check the steps do not already have');
        return { ...c.state, checks: added };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, (bp) => {
      const checks = c.state.checks ?? {};
      const plan = cloneJson(bp.plan);
      let count = 0;
      for (const step of plan.steps) {
        const extra = (checks[step.key] ?? []).filter((a) => !step.acceptance.includes(a));
        step.acceptance.push(...extra);
        count += extra.length;
      }
      return { plan, details: { checks_added: count, steps_fuzzed: plan.steps.filter((s) => checks[s.key]?.length).map((s) => s.key) } };
    }),
};
