import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job } from '../platform/area';
import type { AppDeps } from '../platform/http/request-context';
import { ExecutionRun, ExecutionStatus } from './execution-run.entity';

/** The blueprint counter each final status adds to. */
const counterOf = {
  [ExecutionStatus.COMPLETED]: 'executions_completed',
  [ExecutionStatus.FAILED]: 'executions_failed',
  [ExecutionStatus.ABANDONED]: 'executions_abandoned',
} as const;

export type FinalStatus = keyof typeof counterOf;

/** A running run with no step for `idleMs` is abandoned. */
export function isIdle(run: ExecutionRun, idleMs: number, now: number = Date.now()): boolean {
  return now - run.lastActivityAt.getTime() > idleMs;
}

/**
 * Ends a running run (locked by the caller's transaction `tx`) and counts it on its blueprint, in the
 * same transaction, so the blueprint's stats always agree with its runs.
 */
export async function endRun(tx: EntityManager, run: ExecutionRun, status: FinalStatus, notes: string | null): Promise<void> {
  run.status = status;
  run.endedAt = new Date();
  if (notes !== null) run.notes = notes;
  await tx.flush();
  await tx.execute(`update blueprint set ${counterOf[status]} = ${counterOf[status]} + 1 where id = ?`, [run.blueprint.id]);
}

/**
 * Marks every run idle for longer than `idleMs` abandoned and counts them on their blueprints, in one
 * statement (so atomically). Rows locked by a step in flight are skipped, so instances sweeping at once
 * never count a run twice. Returns how many runs it ended.
 */
export async function sweepIdleRuns(em: EntityManager, idleMs: number): Promise<number> {
  const rows: Array<{ ended: string | number }> = await em.execute(
    `with cutoff as (select now() - make_interval(secs => ?) as t),
          idle as (
            select r.id from execution_run r, cutoff
             where r.status = 'running' and r.started_at < cutoff.t and coalesce(r.last_step_at, r.started_at) < cutoff.t
             for update of r skip locked
          ),
          ended as (
            update execution_run r set status = 'abandoned', ended_at = now()
              from idle where r.id = idle.id and r.status = 'running'
            returning r.blueprint_id
          ),
          per_blueprint as (select blueprint_id, count(*) as n from ended group by blueprint_id),
          counted as (
            update blueprint b set executions_abandoned = b.executions_abandoned + p.n
              from per_blueprint p where b.id = p.blueprint_id
            returning p.n
          )
     select coalesce(sum(n), 0) as ended from counted`,
    [idleMs / 1000],
  );
  return Number(rows[0]?.ended ?? 0);
}

/**
 * Sweeps idle runs every `executionSweepMs` for as long as the app runs, so stats and cards count
 * abandoned runs without anyone touching them (`executionSweepMs` 0: no sweep). Returns a stop function that waits for a sweep in flight.
 */
export function startIdleSweep(deps: AppDeps, onError: (err: unknown) => void): () => Promise<void> {
  const { executionIdleMs, executionSweepMs } = deps.config.limits;
  // 0 turns the sweep off: runs are then settled only when touched (a step or a report).
  if (executionSweepMs <= 0) return async () => undefined;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = sweepIdleRuns(deps.orm.em.fork() as EntityManager, executionIdleMs)
      .then(() => undefined, onError)
      .finally(() => {
        running = null;
      });
  }, executionSweepMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The idle sweep as the execution area's job. */
export const executionIdleSweep: Job = { name: 'execution idle sweep', start: startIdleSweep };
