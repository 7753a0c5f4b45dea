import { moduleLevels, partitionSteps } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { blueprintRef, reportResult } from '../tool-output.report';
import type { ToolDefinition } from '../tool-definition';

interface SwarmParams {
  lanes: number;
}

interface SwarmState {
  moves?: Array<{ module_key: string; lane: number }>;
  notes?: string;
}

const LANES_MAX = 64;

/**
 * The lanes: the server's partition (see `partitionSteps`), then the agent's moves of whole modules.
 * A move never breaks the dependency rule, because modules of one level never depend on each other and
 * every lane runs level by level; so each lane is rebuilt in level order after the moves.
 */
export function lanesOf(plan: Plan, lanes: number, moves: Array<{ module_key: string; lane: number }> = []) {
  const partition = partitionSteps(plan, lanes);
  const moduleOfStep = new Map(plan.steps.map((s) => [s.key, s.moduleKey]));
  const laneOf = new Map<string, number>();
  const position = new Map<string, number>();
  partition.forEach((steps, lane) =>
    steps.forEach((key) => {
      const m = moduleOfStep.get(key)!;
      if (!laneOf.has(m)) {
        laneOf.set(m, lane);
        position.set(m, position.size);
      }
    }),
  );
  for (const move of moves) if (laneOf.has(move.module_key)) laneOf.set(move.module_key, move.lane - 1);
  const levels = moduleLevels(plan);
  const stepsOf = new Map<string, string[]>();
  for (const s of plan.steps) stepsOf.set(s.moduleKey, [...(stepsOf.get(s.moduleKey) ?? []), s.key]);
  return Array.from({ length: lanes }, (_, lane) => {
    const modules = [...laneOf.keys()]
      .filter((m) => laneOf.get(m) === lane)
      .sort((a, b) => (levels.get(a) ?? 0) - (levels.get(b) ?? 0) || position.get(a)! - position.get(b)!);
    const steps = modules.flatMap((m) => stepsOf.get(m) ?? []);
    return { lane: lane + 1, modules, steps, step_count: steps.length };
  });
}

function levelList(plan: Plan) {
  const byLevel: string[][] = [];
  for (const [key, level] of moduleLevels(plan)) (byLevel[level] ??= []).push(key);
  return byLevel.map((modules, level) => ({ level, modules: modules.sort() }));
}

const barrier = 'Every lane finishes its modules of level L before any lane starts level L + 1; a module only depends on modules of lower levels.';

/** `swarm_partition`: steps split into `params.lanes` parallel lanes that respect dependencies (computed by the server). */
export const swarmPartitionTool: ToolDefinition<SwarmParams, SwarmState> = {
  type: 'swarm_partition',
  summary: 'Partitions the steps into N parallel lanes for a swarm of agents, respecting module dependencies.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['lanes'],
    properties: { lanes: { type: 'integer', minimum: 1, maximum: LANES_MAX, description: 'How many agents work in parallel.' } },
  },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Confirm or adjust the lanes',
      prompt: (c) => {
        const plan = c.sources[0]!.plan;
        const lanes = lanesOf(plan, c.params.lanes);
        return `Blueprint "${c.sources[0]!.name}" split by the server into ${c.params.lanes} lane(s), balancing steps per level:\n${lanes.map((l) => `Lane ${l.lane} (${l.step_count} steps): modules ${l.modules.join(', ') || '-'}`).join('\n')}\n\nLevels: ${levelList(
          plan,
        )
          .map((l) => `${l.level}: ${l.modules.join(', ')}`)
          .join(
            ' | ',
          )}\nRule: ${barrier}\n\nStep 1 of 1: confirm the partition (an empty "moves" list), or move whole modules to other lanes (for instance to keep related modules with one agent), and optionally add notes for the swarm.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          moves: {
            type: 'array',
            maxItems: 500,
            default: [],
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['module_key', 'lane'],
              properties: { module_key: { type: 'string', minLength: 1, maxLength: 100 }, lane: { type: 'integer', minimum: 1 } },
            },
          },
          notes: { type: 'string', maxLength: 20_000 },
        },
      },
      accept: (c, s: { moves: Array<{ module_key: string; lane: number }>; notes?: string }) => {
        const withSteps = new Set(c.sources[0]!.plan.steps.map((st) => st.moduleKey));
        s.moves.forEach((m, i) => {
          if (!withSteps.has(m.module_key))
            throw invalid(
              `submission/moves/${i}/module_key`,
              'names no module with steps',
              `submission/moves/${i}/module_key names no module with steps: "${m.module_key}"`,
            );
          if (m.lane > c.params.lanes) throw invalid(`submission/moves/${i}/lane`, `must be at most ${c.params.lanes}`);
        });
        return { moves: s.moves, ...(s.notes ? { notes: s.notes } : {}) };
      },
    },
  ],
  async finish(c) {
    const plan = c.sources[0]!.plan;
    return reportResult({
      blueprint: blueprintRef(c.sources[0]!),
      lanes: c.params.lanes,
      partition: lanesOf(plan, c.params.lanes, c.state.moves),
      levels: levelList(plan),
      barrier,
      moves: c.state.moves ?? [],
      notes: c.state.notes ?? null,
    });
  },
};
