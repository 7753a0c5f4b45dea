import { ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Principal } from '../auth/principal.entity';
import { requireViewer } from '../auth/auth.service';
import { hashToken } from '../platform/sql/tokens';
import { canEditWith, guardOf, viewerTeamRoles } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { getBlueprint } from '../blueprints/blueprint.service';
import { isUuid } from '../platform/sql/ids';
import type { Plan, PlanModule, PlanStep } from '../plans/plan';
import type { RequestContext } from '../platform/context';
import { conflict, invalid, notFound, staleStepToken } from '../platform/errors';
import { ExecutionRun, ExecutionStatus } from './execution-run.entity';
import { buildSystemPrompt, type TeamConventions } from './execution.prompt';
import { endRun, isIdle, type FinalStatus } from './execution.sweep';
import { newStageTokens, nextStageToken, stageTokenHashes } from './execution.tokens';

/** What a step response carries about its step (docs/api.md). */
export interface StepContent {
  key: string;
  module: { key: string; name: string; kind: string };
  title: string;
  instructions: string;
  acceptance: string[];
}

export interface StartView {
  run: ExecutionRun;
  systemPrompt: string;
  /** `stageTokens[n - 1]` opens step n. */
  stageTokens: string[];
  /** Step 1's content. */
  step: StepContent;
}

export interface StepView {
  run: ExecutionRun;
  n: number;
  step: StepContent;
  /** True on the last step: the run is complete. */
  dn: boolean;
  /** Step n + 1's token; null after the last step. */
  nextToken: string | null;
}

export const MAX_NOTES_LENGTH = 10_000;

export function stepContent(step: PlanStep, module: PlanModule | undefined): StepContent {
  return {
    key: step.key,
    // Plans are validated so the module exists; a dangling key still answers rather than failing the run.
    module: module ? { key: module.key, name: module.name, kind: module.kind } : { key: step.moduleKey, name: step.moduleKey, kind: 'unknown' },
    title: step.title,
    instructions: step.instructions,
    acceptance: step.acceptance,
  };
}

/**
 * The plan a new run follows: the blueprint's latest version snapshot, so that the run's steps stay
 * the same while the blueprint is edited (a run is never half one version, half another).
 */
async function latestSnapshot(tx: EntityManager, bp: Blueprint): Promise<{ version: number | null; plan: Plan }> {
  const rows: Array<{ number: number; plan: Plan }> = await tx.execute(
    'select number, plan from blueprint_version where blueprint_id = ? order by number desc limit 1',
    [bp.id],
  );
  return rows[0] ? { version: Number(rows[0].number), plan: rows[0].plan } : { version: null, plan: bp.plan };
}

/**
 * Hook for team coding conventions: a team blueprint's executions carry its team's conventions, for the
 * team's members only. Anyone else running a public team blueprint gets no team name and no conventions
 * (the team is a 404 to them everywhere else).
 */
export async function conventionsFor(em: EntityManager, teamId: string | null, principalId: string): Promise<TeamConventions | null> {
  if (!teamId) return null;
  // Read fresh in the start's transaction, never from an identity map that may predate an edit.
  const rows: Array<{ name: string; conventions: string }> = await em.execute(
    'select t.name, t.conventions from team t where t.id = ? and exists (select 1 from team_member m where m.team_id = t.id and m.principal_id = ?)',
    [teamId, principalId],
  );
  const team = rows[0];
  return team && team.conventions.trim() ? { teamName: team.name, conventions: team.conventions } : null;
}

/**
 * Starts a run of a blueprint the viewer can read: records it, counts it on the blueprint, and answers
 * the system prompt, every stage token and step 1. Every call is a new run (a run is one start). A
 * blueprint without steps cannot be executed: 409 CONFLICT, nothing recorded.
 */
export async function startExecution(ctx: RequestContext, blueprintId: string): Promise<StartView> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId);
  const view = await ctx.em.transactional(async (tx): Promise<StartView> => {
    const { version, plan } = await latestSnapshot(tx, bp);
    if (plan.steps.length === 0) throw conflict('This blueprint has no steps, so there is nothing to execute', { blueprint_id: bp.id, total_steps: 0 });
    const stageTokens = newStageTokens(plan.steps.length);
    // Built once and kept on the run: conventions edited later reach later runs, never this one.
    const systemPrompt = buildSystemPrompt(
      { name: bp.name, slug: bp.slug, description: bp.description, plan },
      await conventionsFor(tx, bp.team?.id ?? null, viewer.principalId),
    );
    const run = new ExecutionRun({
      blueprint: ref(bp),
      principal: tx.getReference(Principal, viewer.principalId, { wrapped: true }),
      totalSteps: plan.steps.length,
      stageTokenHashes: stageTokenHashes(stageTokens),
      blueprintVersion: version,
    });
    run.systemPrompt = systemPrompt;
    tx.persist(run);
    await tx.flush();
    // Counted in SQL so concurrent starts never lose an increment.
    await tx.execute('update blueprint set executions_started = executions_started + 1 where id = ?', [bp.id]);
    const first = plan.steps[0]!;
    return {
      run,
      systemPrompt,
      stageTokens,
      step: stepContent(
        first,
        plan.modules.find((m) => m.key === first.moduleKey),
      ),
    };
  });
  ctx.loaders.clear();
  return view;
}

/** Step n of the run's plan snapshot, read from the database without loading the whole plan. */
async function stepOfRun(em: EntityManager, run: ExecutionRun, n: number): Promise<StepContent> {
  const source =
    run.blueprintVersion === null
      ? { sql: 'select plan from blueprint where id = ?', params: [run.blueprint.id] }
      : { sql: 'select plan from blueprint_version where blueprint_id = ? and number = ?', params: [run.blueprint.id, run.blueprintVersion] };
  const rows: Array<{ step: PlanStep | null; module: PlanModule | null }> = await em.execute(
    `select s.step, (select m.value from jsonb_array_elements(src.plan->'modules') m where m.value->>'key' = s.step->>'moduleKey' limit 1) as module
       from (${source.sql}) src, lateral (select src.plan->'steps'->(?::int) as step) s`,
    [...source.params, n - 1],
  );
  const step = rows[0]?.step;
  if (!step) throw notFound('step', String(n));
  return stepContent(step, rows[0]!.module ?? undefined);
}

function parseStepNumber(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1) throw invalid('n', 'must be an integer of 1 or more', 'n must be a step number: an integer of 1 or more');
  return n;
}

function outOfRange(n: number, total: number) {
  return invalid('n', `must be between 1 and ${total}`, `Step ${n} is out of range: this run has steps 1 to ${total}`);
}

/**
 * Fetches step n of a run with step n's token. The token finds the run (it is unique to one run and
 * one step) and must be the viewer's; a wrong, foreign or out-of-turn token is 409 STALE_STEP_TOKEN and
 * writes nothing. Fetching a step already reached answers the same again and writes nothing; the first
 * fetch of step n records progress, and of the last step completes the run. The run's row is locked, so
 * concurrent fetches count once.
 */
export async function executionStep(ctx: RequestContext, blueprintId: string, rawN: unknown, token: unknown): Promise<StepView> {
  const viewer = requireViewer(ctx);
  const n = parseStepNumber(rawN);
  if (typeof token !== 'string' || token === '') throw invalid('token', 'must be a non-empty string', 'token (the stage token of step n) is required');
  const bp = await getBlueprint(ctx, blueprintId);
  const hash = hashToken(token);
  type Outcome = { view: StepView } | { ended: ExecutionRun };
  const outcome = await ctx.em.transactional(async (tx): Promise<Outcome> => {
    const rows: Array<Record<string, unknown>> = await tx.execute(
      'select * from execution_run where blueprint_id = ? and stage_token_hashes @> ?::text[] for update',
      [bp.id, `{${hash}}`],
    );
    const run = rows[0] ? tx.map(ExecutionRun, rows[0]) : null;
    if (!run || run.principal.id !== viewer.principalId) {
      if (n > bp.stepCount) throw outOfRange(n, bp.stepCount);
      throw staleStepToken();
    }
    if (n > run.totalSteps) throw outOfRange(n, run.totalSteps);
    if (run.stageTokenHashes.indexOf(hash) + 1 !== n) throw staleStepToken(`This token opens another step of the run, not step ${n}`);
    const answer = async (): Promise<StepView> => ({
      run,
      n,
      step: await stepOfRun(tx, run, n),
      dn: n === run.totalSteps,
      nextToken: n < run.totalSteps ? nextStageToken(token) : null,
    });
    if (n <= run.stepsReached) return { view: await answer() }; // a repeat: same answer, nothing written
    if (run.status === ExecutionStatus.RUNNING && isIdle(run, ctx.config.limits.executionIdleMs)) {
      await endRun(tx, run, ExecutionStatus.ABANDONED, null);
      return { ended: run };
    }
    if (run.status !== ExecutionStatus.RUNNING) return { ended: run };
    if (n > run.stepsReached + 1) throw staleStepToken(`Out of turn: step ${run.stepsReached + 1} comes before step ${n}`);
    run.stepsReached = n;
    run.lastStepAt = new Date();
    if (n === run.totalSteps) await endRun(tx, run, ExecutionStatus.COMPLETED, null);
    else await tx.flush();
    return { view: await answer() };
  });
  if ('ended' in outcome)
    // Thrown after the commit so that marking an idle run abandoned is kept.
    throw conflict(`The run is ${outcome.ended.status}; it takes no more steps`, { run_id: outcome.ended.id, status: outcome.ended.status });
  ctx.loaders.clear();
  return outcome.view;
}

/** Loads a run of the viewer's (others' runs: 404), locked, settling it to abandoned when it idled too long. */
async function ownRunLocked(ctx: RequestContext, tx: EntityManager, runId: string): Promise<ExecutionRun> {
  const viewer = requireViewer(ctx);
  if (!isUuid(runId)) throw notFound('execution run', runId);
  const rows: Array<Record<string, unknown>> = await tx.execute('select * from execution_run where id = ? for update', [runId.toLowerCase()]);
  const run = rows[0] ? tx.map(ExecutionRun, rows[0]) : null;
  if (!run || run.principal.id !== viewer.principalId) throw notFound('execution run', runId);
  if (run.status === ExecutionStatus.RUNNING && isIdle(run, ctx.config.limits.executionIdleMs)) await endRun(tx, run, ExecutionStatus.ABANDONED, null);
  return run;
}

const reportable: readonly string[] = [ExecutionStatus.COMPLETED, ExecutionStatus.FAILED, ExecutionStatus.ABANDONED];

/**
 * The agent's own verdict on its run, with optional notes (docs/execution.md). `failed` and `abandoned`
 * end a running run. `completed` is never a claim: a run is successful only once it reached its last step
 * (which completed it), so `completed` for a run that has not is 409 CONFLICT, and for a run its last step
 * completed it only records the notes (counted once, at that step). Only the run's principal may report
 * (others: 404); any other report on a run that has ended is 409 CONFLICT.
 */
export async function reportExecution(ctx: RequestContext, runId: string, rawStatus: unknown, rawNotes: unknown): Promise<ExecutionRun> {
  requireViewer(ctx);
  if (typeof rawStatus !== 'string' || !reportable.includes(rawStatus))
    throw invalid('status', 'must be completed, failed or abandoned', 'status must be "completed", "failed" or "abandoned"');
  const status = rawStatus as FinalStatus;
  if (rawNotes !== undefined && rawNotes !== null && typeof rawNotes !== 'string') throw invalid('notes', 'must be a string');
  const notes = typeof rawNotes === 'string' ? rawNotes : null;
  if (notes !== null && notes.length > MAX_NOTES_LENGTH)
    throw invalid('notes', `is longer than ${MAX_NOTES_LENGTH} characters`, `notes must be at most ${MAX_NOTES_LENGTH} characters`);
  type Outcome = { ended: ExecutionRun } | { unfinished: ExecutionRun } | { reported: ExecutionRun };
  const outcome = await ctx.em.transactional(async (tx): Promise<Outcome> => {
    const run = await ownRunLocked(ctx, tx, runId);
    if (status === ExecutionStatus.COMPLETED) {
      if (run.status === ExecutionStatus.RUNNING) return { unfinished: run };
      if (run.status !== ExecutionStatus.COMPLETED) return { ended: run };
      if (notes !== null) {
        run.notes = notes;
        await tx.flush();
      }
      return { reported: run };
    }
    if (run.status !== ExecutionStatus.RUNNING) return { ended: run };
    await endRun(tx, run, status, notes);
    return { reported: run };
  });
  if ('unfinished' in outcome) {
    const run = outcome.unfinished;
    throw conflict(
      `The run has reached step ${run.stepsReached} of ${run.totalSteps}; it completes when its last step is fetched, so it cannot be reported completed`,
      { run_id: run.id, status: run.status, steps_reached: run.stepsReached, total_steps: run.totalSteps },
    );
  }
  if ('ended' in outcome)
    throw conflict(`The run is ${outcome.ended.status} already; only a running run can be reported ${status}`, {
      run_id: outcome.ended.id,
      status: outcome.ended.status,
    });
  ctx.loaders.clear();
  return outcome.reported;
}

/** Whether the viewer sees every run of `bp` (owner and team editors) or only their own. */
export async function seesAllRuns(ctx: RequestContext, bp: Blueprint): Promise<boolean> {
  return ctx.viewer !== null && canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOf(bp));
}

/**
 * One run: the run's principal, and the owner or team editors of its blueprint, may read it (others:
 * 404). An idle running run is settled to abandoned on the way.
 */
export async function getExecutionRun(ctx: RequestContext, runId: string): Promise<ExecutionRun> {
  const viewer = requireViewer(ctx);
  if (!isUuid(runId)) throw notFound('execution run', runId);
  return ctx.em.transactional(async (tx) => {
    const rows: Array<Record<string, unknown>> = await tx.execute('select * from execution_run where id = ? for update', [runId.toLowerCase()]);
    const run = rows[0] ? tx.map(ExecutionRun, rows[0]) : null;
    if (!run) throw notFound('execution run', runId);
    if (run.principal.id !== viewer.principalId) {
      const bp = await getBlueprint(ctx, run.blueprint.id).catch(() => null);
      if (!bp || !(await seesAllRuns(ctx, bp))) throw notFound('execution run', runId);
    }
    if (run.status === ExecutionStatus.RUNNING && isIdle(run, ctx.config.limits.executionIdleMs)) await endRun(tx, run, ExecutionStatus.ABANDONED, null);
    return run;
  });
}
