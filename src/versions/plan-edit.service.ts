/**
 * Direct plan edits (docs/proposals.md): the owner or a team editor replaces a blueprint's plan in one
 * call, with optimistic concurrency on the version number the editor started from.
 */
import { LockMode } from '@mikro-orm/core';
import { requireViewer } from '../auth/auth.service';
import { assertEditable } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { latestVersionNumber, recordVersion } from '../blueprints/blueprint-version.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import { diffPlans } from '../plans/algebra';
import { moduleFromWire, stepFromWire, type Plan, type WireModule, type WireStep } from '../plans/plan';
import { freeObjectSchema, moduleSchema, stepSchema } from '../plans/plan.schema';
import { assertValidPlan } from '../plans/plan.validation';
import type { RequestContext } from '../platform/context';
import { conflict } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { actorOf, recordAudit } from '../teams/audit.service';
import { planDiffToWire } from './version.wire';

/** The body of `PUT /api/blueprints/:id/plan` (also the GraphQL input and the MCP arguments, in wire names). */
export interface PlanEditInput {
  modules: WireModule[];
  steps: WireStep[];
  configuration: Record<string, unknown>;
  design_system: Record<string, unknown>;
  base_version: number;
}

export const planEditSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['modules', 'steps', 'configuration', 'design_system', 'base_version'],
  properties: {
    modules: { type: 'array', items: moduleSchema, maxItems: 10_000 },
    steps: { type: 'array', items: stepSchema, maxItems: 100_000 },
    configuration: freeObjectSchema,
    design_system: freeObjectSchema,
    base_version: { type: 'integer', minimum: 0, maximum: 1_000_000_000, description: 'The version the editor started from (the body’s `version`).' },
  },
};
const validatePlanEdit = compileSchema(planEditSchema);

/** Parses and checks a plan edit: 400 naming each offending path (JSON shape, then the section 2 rules). */
export function parsePlanEdit(ctx: RequestContext, body: unknown): { plan: Plan; baseVersion: number } {
  const input = assertValid<PlanEditInput>(validatePlanEdit, structuredClone(body ?? null), 'body');
  const plan: Plan = {
    modules: input.modules.map(moduleFromWire),
    steps: input.steps.map(stepFromWire),
    configuration: input.configuration,
    designSystem: input.design_system,
  };
  assertValidPlan(plan, ctx.config.limits, 'body');
  return { plan, baseVersion: input.base_version };
}

export interface PlanEditResult {
  blueprint: Blueprint;
  /** The version written, or null when the plan was already this one (nothing written). */
  version: number | null;
}

/**
 * `PUT /api/blueprints/:id/plan`: 404 unreadable, 403 not an editor, 400 a broken plan, 409 CONFLICT with
 * `details.current_version` when the blueprint moved past `base_version`. One transaction with the row
 * locked: the plan, its version (cause `edit`, `changes` = the plan diff), the `version` activity event and,
 * for a team blueprint, an audit entry. Two saves from one base: the second waits for the lock, then sees
 * the first one's version and gets the 409. An unchanged plan writes nothing.
 */
export async function updateBlueprintPlan(ctx: RequestContext, idOrSlug: string, body: unknown): Promise<PlanEditResult> {
  const viewer = requireViewer(ctx);
  const found = await getBlueprint(ctx, idOrSlug);
  await assertEditable(ctx, found, idOrSlug);
  const { plan, baseVersion } = parsePlanEdit(ctx, body);
  const version = await ctx.em.transactional(async (tx) => {
    const bp = await tx.findOneOrFail(Blueprint, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const current = await latestVersionNumber(tx, bp.id);
    if (current !== baseVersion)
      throw conflict(`The plan changed since you opened it: it is at version ${current}, you started from ${baseVersion}. Reload it and edit again`, {
        base_version: baseVersion,
        current_version: current,
      });
    const diff = diffPlans(bp.plan, plan);
    if (diff.isEmpty) return null;
    bp.setPlan(plan);
    const written = await recordVersion(tx, bp, viewer.principalId, 'edit', planDiffToWire(diff));
    await tx.flush();
    if (bp.team)
      await recordAudit(tx, {
        teamId: bp.team.id,
        actor: actorOf(ctx),
        action: 'blueprint.edited',
        targetType: 'blueprint',
        targetId: bp.id,
        details: { plan: true, version: written.number, sections_touched: diff.sectionsTouched },
      });
    return written.number;
  });
  ctx.loaders.clear();
  ctx.em.clear();
  return { blueprint: await getBlueprint(ctx, found.id), version };
}
