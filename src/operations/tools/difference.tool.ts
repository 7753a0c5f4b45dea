import { diffPlans } from '../../plans/algebra';
import { planDiffToWire, type WirePlanDiff } from '../../versions/version.wire';
import { blueprintRef, narrativeSchema, reportResult } from '../tool-output.report';
import type { ToolContext, ToolDefinition } from '../tool-definition';

interface DifferenceState {
  summary?: string;
  highlights?: string[];
}

type Ctx = ToolContext<Record<string, never>, DifferenceState>;

/** The server's diff from the first source to the second; the same function version history uses. */
function computedDiff(c: Ctx): WirePlanDiff {
  return planDiffToWire(diffPlans(c.sources[0]!.plan, c.sources[1]!.plan));
}

function describe(d: WirePlanDiff): string {
  const keyed = (name: string, k: { added: string[]; removed: string[]; changed: Array<{ key: string; fields: string[] }> }) =>
    [
      `${name} added: ${k.added.join(', ') || '(none)'}`,
      `${name} removed: ${k.removed.join(', ') || '(none)'}`,
      `${name} changed: ${k.changed.map((c) => `${c.key} (${c.fields.join(', ')})`).join('; ') || '(none)'}`,
    ].join('\n');
  const json = (name: string, j: { added: string[]; removed: string[]; changed: string[] }) =>
    `${name}: added ${j.added.join(', ') || '-'}; removed ${j.removed.join(', ') || '-'}; changed ${j.changed.join(', ') || '-'}`;
  return [
    keyed('Modules', d.modules),
    keyed('Steps', d.steps),
    `Steps reordered: ${d.steps.reordered ? 'yes' : 'no'}`,
    json('Configuration', d.configuration),
    json('Design system', d.design_system),
  ].join('\n');
}

/** `difference`: a structured diff of two blueprints, computed by the server; the agent summarises it. */
export const differenceTool: ToolDefinition<Record<string, never>, DifferenceState> = {
  type: 'difference',
  summary: 'Structured diff of two blueprints: modules, steps, configuration and design system added, removed and changed.',
  sources: { min: 2, max: 2 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Summarise the differences',
      prompt: (c) => {
        const [a, b] = [c.sources[0]!, c.sources[1]!];
        return `The server compared "${a.name}" (${a.slug}) with "${b.name}" (${b.slug}); what changes from the first to the second:\n\n${describe(computedDiff(c))}\n\nStep 1 of 1: summarise what these differences mean for someone choosing between the two plans (a few sentences), and optionally list the most important differences as highlights. The structured diff itself is kept as computed.`;
      },
      submissionSchema: narrativeSchema('summary', {
        highlights: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 2000 }, default: [] },
      }),
      accept: (c, s: { summary: string; highlights: string[] }) => ({ ...c.state, summary: s.summary, highlights: s.highlights }),
    },
  ],
  async finish(c) {
    return reportResult({
      from: blueprintRef(c.sources[0]!),
      to: blueprintRef(c.sources[1]!),
      diff: computedDiff(c),
      summary: c.state.summary,
      highlights: c.state.highlights ?? [],
    });
  },
};
