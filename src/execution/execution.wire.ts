import { requireViewer } from '../auth/auth.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import type { ExecutionRun } from './execution-run.entity';
import { executionsOf, executionStatsOf, type ExecutionStats } from './execution.history';
import { getExecutionRun, type StartView, type StepView } from './execution.service';

/** `GET /api/blueprints/:id/start` (docs/api.md): `next_token` is step 1's token. */
export function toStartBody(v: StartView) {
  return {
    run_id: v.run.id,
    system_prompt: v.systemPrompt,
    total_steps: v.run.totalSteps,
    stage_tokens: v.stageTokens,
    step: v.step,
    next_token: v.stageTokens[0]!,
    dn: false,
  };
}

/** `GET /api/blueprints/:id/step/:n`: `next_token` is step n + 1's token, null once `dn`. */
export function toStepBody(v: StepView) {
  return { run_id: v.run.id, n: v.n, step: v.step, dn: v.dn, next_token: v.nextToken };
}

/** One entry of the execution history; a single run (`withPrompt`) also shows the system prompt it started with. */
export function toRunBody(run: ExecutionRun, options: { withPrompt?: boolean } = {}) {
  return {
    id: run.id,
    blueprint_id: run.blueprint.id,
    principal_id: run.principal.id,
    status: run.status,
    total_steps: run.totalSteps,
    steps_reached: run.stepsReached,
    notes: run.notes,
    started_at: run.startedAt.toISOString(),
    last_step_at: run.lastStepAt?.toISOString() ?? null,
    ended_at: run.endedAt?.toISOString() ?? null,
    ...(options.withPrompt ? { system_prompt: run.systemPrompt } : {}),
  };
}

export function toStatsBody(s: ExecutionStats) {
  return { started: s.started, completed: s.completed, failed: s.failed, abandoned: s.abandoned, running: s.running, success_rate: s.successRate };
}

/** `GET /api/blueprints/:id/executions` (REST and MCP): runs newest first, with the blueprint's stats. */
export async function executionHistoryBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  requireViewer(ctx);
  const page = pageFromQuery(query, ctx.config.limits);
  const bp = await getBlueprint(ctx, idOrSlug);
  const { items, total } = await executionsOf(ctx, bp, page);
  return { items: items.map((r) => toRunBody(r)), total, ...page, stats: toStatsBody(executionStatsOf(bp)) };
}

/** `GET /api/executions/:runId` (REST and MCP): one run, with the system prompt it started with. */
export async function executionRunBody(ctx: RequestContext, runId: string) {
  return toRunBody(await getExecutionRun(ctx, runId), { withPrompt: true });
}
