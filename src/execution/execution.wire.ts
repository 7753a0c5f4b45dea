import type { ExecutionRun } from './execution-run.entity';
import type { ExecutionStats } from './execution.history';
import type { StartView, StepView } from './execution.service';

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

/** One entry of the execution history. */
export function toRunBody(run: ExecutionRun) {
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
  };
}

export function toStatsBody(s: ExecutionStats) {
  return { started: s.started, completed: s.completed, failed: s.failed, abandoned: s.abandoned, running: s.running, success_rate: s.successRate };
}
