import { LockMode } from '@mikro-orm/core';
import { Blueprint } from '../blueprints/blueprint.entity';
import { diffPlans } from '../plans/algebra';
import type { Plan } from '../plans/plan';
import { assertValidPlan } from '../plans/plan.validation';
import { conflict } from '../platform/errors';
import { actorOf, recordAudit } from '../teams/audit.service';
import { latestVersionNumber, recordVersion } from '../blueprints/blueprint-version.service';
import { planDiffToWire } from '../versions/version.wire';
import type { ToolContext } from './tool-definition';

/** What every INPLACE tool keeps in its state: the version its source was at when the operation started. */
export interface InplaceState {
  startVersion: number;
}

/** The initial state of an INPLACE tool: remembers the source's newest version number. */
export async function inplaceBase(c: ToolContext<unknown, unknown>): Promise<InplaceState> {
  return { startVersion: await latestVersionNumber(c.tx, c.sources[0]!.id) };
}

export interface InplaceWrite {
  /** The new plan, computed from the source's current plan (locked, and unchanged since the start). */
  plan: Plan;
  /** Tool-specific details added to the version's `changes` (snake_case keys). */
  details?: Record<string, unknown>;
  /** Write a version even when the plan is unchanged (a change of metadata such as shields). */
  always?: boolean;
}

/**
 * Finishes an INPLACE tool: locks the source row, refuses (409) when another change landed since the
 * operation started, validates the new plan, writes it with a version (cause = the tool type,
 * `changes` = the plan diff plus `details`) and publishes `blueprint.activity` kind `version`, all in
 * the submission's transaction. An unchanged plan writes nothing unless `always` is set.
 */
export async function writeInplace(
  c: ToolContext<unknown, InplaceState>,
  compute: (current: Blueprint) => InplaceWrite | Promise<InplaceWrite>,
): Promise<Record<string, unknown>> {
  const { tx, ctx, operation } = c;
  const bp = await tx.findOneOrFail(Blueprint, { id: c.sources[0]!.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const current = await latestVersionNumber(tx, bp.id);
  if (current !== c.state.startVersion)
    throw conflict(
      `The blueprint changed (now version ${current}) since this operation started at version ${c.state.startVersion}; cancel it and start again`,
      {
        base_version: c.state.startVersion,
        current_version: current,
      },
    );
  const out = await compute(bp);
  assertValidPlan(out.plan, ctx.config.limits);
  const diff = diffPlans(bp.plan, out.plan);
  if (diff.isEmpty && !out.always)
    return { blueprint_ids: [bp.id], version: null, unchanged: true, changes: null, ...(out.details ? { details: out.details } : {}) };
  const changes = { operation_id: operation.id, ...planDiffToWire(diff), ...out.details };
  bp.setPlan(out.plan);
  const version = await recordVersion(tx, bp, operation.principal.id, operation.toolType, changes);
  await tx.flush();
  if (bp.team)
    await recordAudit(tx, {
      teamId: bp.team.id,
      actor: actorOf(ctx),
      action: 'blueprint.tool_applied',
      targetType: 'blueprint',
      targetId: bp.id,
      details: { tool_type: operation.toolType, operation_id: operation.id, version: version.number },
    });
  // recordVersion queued the version's activity event.
  return { blueprint_ids: [bp.id], version: version.number, unchanged: false, changes };
}
