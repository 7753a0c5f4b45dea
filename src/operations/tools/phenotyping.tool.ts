import { planStats, type PlanStats } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { outlineModules } from '../plan-outline';
import { blueprintRef, narrativeSchema, reportResult, round } from '../tool-output.report';
import type { ToolDefinition } from '../tool-definition';

interface PhenotypingState {
  narrative?: string;
  estimate?: { low: number; high: number; unit: string };
}

/** The server's measurements of a plan, in the wire form: stack, sizes, shape, critical path and effort. */
export function traitsOf(plan: Plan) {
  const s: PlanStats = planStats(plan);
  return {
    stack: s.stack,
    sizes: {
      modules: s.modules,
      steps: s.steps,
      dependencies: s.dependencies,
      acceptance_checks: s.acceptanceChecks,
      modules_by_kind: s.modulesByKind,
      steps_by_module: s.stepsByModule,
      steps_per_module: { min: s.stepsPerModule.min, max: s.stepsPerModule.max, mean: round(s.stepsPerModule.mean) },
      steps_without_acceptance: s.stepsWithoutAcceptance,
      modules_without_steps: s.modulesWithoutSteps,
    },
    shape: { depth: s.depth, width: s.width, clusters: s.clusters, entry_points: s.entryPoints, foundations: s.foundations },
    critical_path: { modules: s.criticalPath, steps: s.criticalPathWeight },
    // Steps is the work; the critical path is the least time with unlimited hands; their ratio is the useful parallelism.
    effort: {
      steps: s.steps,
      critical_path_steps: s.criticalPathWeight,
      parallelism: s.criticalPathWeight === 0 ? 0 : round(s.steps / s.criticalPathWeight, 2),
    },
  };
}

/** `phenotyping`: observable traits of a blueprint measured by the server, with the agent's reading of them. */
export const phenotypingTool: ToolDefinition<Record<string, never>, PhenotypingState> = {
  type: 'phenotyping',
  summary: 'Observable traits of a blueprint: stack, sizes, dependency depth, critical path and effort.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Interpret the traits',
      prompt: (c) => {
        const bp = c.sources[0]!;
        return `Blueprint "${bp.name}".\n\nModules:\n${outlineModules(bp.plan)}\n\nTraits measured by the server:\n${JSON.stringify(traitsOf(bp.plan), null, 2)}\n\nStep 1 of 1: write a short narrative of what these traits say (where the risk and the bottleneck are, what can run in parallel, what looks under-specified), and optionally an effort estimate as a range {low, high, unit}. The measurements are kept as computed.`;
      },
      submissionSchema: narrativeSchema('narrative', {
        effort_estimate: {
          type: 'object',
          additionalProperties: false,
          required: ['low', 'high', 'unit'],
          properties: { low: { type: 'number', minimum: 0 }, high: { type: 'number', minimum: 0 }, unit: { type: 'string', enum: ['hours', 'days', 'weeks'] } },
        },
      }),
      accept: (c, s: { narrative: string; effort_estimate?: { low: number; high: number; unit: string } }) => {
        const e = s.effort_estimate;
        if (e && e.low > e.high) throw invalid('submission/effort_estimate/low', 'must not exceed high');
        return { narrative: s.narrative, ...(e ? { estimate: e } : {}) };
      },
    },
  ],
  async finish(c) {
    const bp = c.sources[0]!;
    return reportResult({ blueprint: blueprintRef(bp), traits: traitsOf(bp.plan), narrative: c.state.narrative, effort_estimate: c.state.estimate ?? null });
  },
};
