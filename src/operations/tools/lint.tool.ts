import { lintPlan, type LintFinding } from '../../plans/lint';
import { invalid } from '../../platform/errors';
import { blueprintRef, narrativeSchema, reportResult } from '../tool-output.report';
import type { ToolDefinition } from '../tool-definition';

interface LintState {
  summary?: string;
  suggestions?: Array<{ finding: number; suggestion: string }>;
}

function counts(findings: LintFinding[]) {
  return {
    error: findings.filter((f) => f.severity === 'error').length,
    warning: findings.filter((f) => f.severity === 'warning').length,
    info: findings.filter((f) => f.severity === 'info').length,
  };
}

/** `lint`: plan problems found by the server (dangling keys, cycles, empty acceptance, orphan steps...); the agent suggests fixes. */
export const lintTool: ToolDefinition<Record<string, never>, LintState> = {
  type: 'lint',
  summary: 'Plan problems: dangling keys, cycles, steps without acceptance checks, orphan steps and modules, steps out of order.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Suggest fixes',
      prompt: (c) => {
        const findings = lintPlan(c.sources[0]!.plan);
        const list = findings.length
          ? findings.map((f, i) => `${i}. [${f.severity}] ${f.code} at ${f.path}: ${f.message}`).join('\n')
          : '(no findings: the plan is clean)';
        return `Blueprint "${c.sources[0]!.name}". The server found:\n${list}\n\nStep 1 of 1: summarise the health of the plan and, for the findings worth fixing, suggest a fix (refer to a finding by its number). The findings are kept as computed.`;
      },
      submissionSchema: narrativeSchema('summary', {
        suggestions: {
          type: 'array',
          maxItems: 1000,
          default: [],
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['finding', 'suggestion'],
            properties: { finding: { type: 'integer', minimum: 0 }, suggestion: { type: 'string', minLength: 1, maxLength: 5000 } },
          },
        },
      }),
      accept: (c, s: { summary: string; suggestions: Array<{ finding: number; suggestion: string }> }) => {
        const n = lintPlan(c.sources[0]!.plan).length;
        s.suggestions.forEach((x, i) => {
          if (x.finding >= n)
            throw invalid(`submission/suggestions/${i}/finding`, `must be below ${n}`, `submission/suggestions/${i}/finding names no finding (there are ${n})`);
        });
        return { summary: s.summary, suggestions: s.suggestions };
      },
    },
  ],
  async finish(c) {
    const findings = lintPlan(c.sources[0]!.plan);
    const suggestions = c.state.suggestions ?? [];
    return reportResult({
      blueprint: blueprintRef(c.sources[0]!),
      clean: findings.length === 0,
      counts: counts(findings),
      findings: findings.map((f, i) => ({ ...f, suggestion: suggestions.find((x) => x.finding === i)?.suggestion ?? null })),
      summary: c.state.summary,
    });
  },
};
