import { canRead, guardOf } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { getBlueprint } from '../blueprints/blueprint.service';
import { diffPlans, type ChangedItem, type KeyedDiff, type PlanDiff } from '../plans/algebra';
import { changedModuleFields, changedStepFields } from '../plans/algebra.core';
import type { Plan, PlanModule, PlanStep } from '../plans/plan';
import type { RequestContext } from '../platform/context';
import { invalid, notFound } from '../platform/errors';

/** How one key moved on one side since the fork point. */
export interface KeyChange {
  change: 'added' | 'removed' | 'changed';
  /** Fields that differ from the base (changed only). */
  fields: string[];
}

/** One module or step touched on either side: what the fork did, what the parent did. */
export interface KeyComparison {
  key: string;
  ahead: KeyChange | null;
  behind: KeyChange | null;
  /** Both sides touched it and ended up different: merging needs a choice. */
  conflict: boolean;
}

export type ComparisonStatus = 'identical' | 'ahead' | 'behind' | 'diverged';

export interface ForkComparison {
  fork: Blueprint;
  parent: Blueprint;
  /** The parent's version the fork was taken from; null when that snapshot is unknown. */
  baseVersion: number | null;
  /** The parent's newest version number. */
  parentVersion: number | null;
  /** Changes the fork made since the fork point (base -> fork). */
  ahead: PlanDiff;
  /** Changes the parent made since the fork point (base -> parent). */
  behind: PlanDiff;
  status: ComparisonStatus;
  modules: KeyComparison[];
  steps: KeyComparison[];
}

interface BaseRow {
  base_version: number | null;
  base_plan: Plan | null;
  fork_point_plan: Plan;
  parent_version: number | null;
}

/**
 * The fork point: the newest version of the fork that records `parent_version` (the fork itself, or a
 * later upstream merge), and the parent's snapshot of that version. When the parent's snapshot is gone,
 * the fork's own snapshot at that point stands in (a fork starts as an exact copy). One statement.
 */
async function forkPoint(ctx: RequestContext, forkId: string, parentId: string): Promise<BaseRow | null> {
  const rows: BaseRow[] = await ctx.em.execute(
    `select fv.base_version, pv.plan as base_plan, fv.plan as fork_point_plan,
            (select max(number) from blueprint_version where blueprint_id = ?) as parent_version
       from (select plan, case when jsonb_typeof(changes->'parent_version') = 'number'
                               then (changes->>'parent_version')::int end as base_version
               from blueprint_version
              where blueprint_id = ? and (changes->'parent_version' is not null or number = 1)
              order by (changes->'parent_version' is not null) desc, number desc limit 1) fv
       left join blueprint_version pv on pv.blueprint_id = ? and pv.number = fv.base_version`,
    [parentId, forkId, parentId],
  );
  return rows[0] ?? null;
}

function keyChanges(d: KeyedDiff): Map<string, KeyChange> {
  const out = new Map<string, KeyChange>();
  for (const key of d.added) out.set(key, { change: 'added', fields: [] });
  for (const key of d.removed) out.set(key, { change: 'removed', fields: [] });
  for (const c of d.changed as ChangedItem[]) out.set(c.key, { change: 'changed', fields: c.fields });
  return out;
}

/** Per key: each side's change, and whether the two sides now disagree. */
function perKey<T extends { key: string }>(
  ahead: KeyedDiff,
  behind: KeyedDiff,
  forkItems: readonly T[],
  parentItems: readonly T[],
  fieldsDiffer: (a: T, b: T) => string[],
): KeyComparison[] {
  const a = keyChanges(ahead);
  const b = keyChanges(behind);
  const forkByKey = new Map(forkItems.map((i) => [i.key, i]));
  const parentByKey = new Map(parentItems.map((i) => [i.key, i]));
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.map((key) => {
    const mine = forkByKey.get(key);
    const theirs = parentByKey.get(key);
    const differ = !mine || !theirs ? mine !== theirs : fieldsDiffer(mine, theirs).length > 0;
    return { key, ahead: a.get(key) ?? null, behind: b.get(key) ?? null, conflict: a.has(key) && b.has(key) && differ };
  });
}

/**
 * What a fork has that its parent lacks (ahead) and what the parent gained since the fork point
 * (behind), per module and per step, plus the configuration and design system paths. A blueprint that is
 * not a fork is 400; a parent the caller may not see is 404.
 */
export async function compareWithParent(ctx: RequestContext, idOrSlug: string): Promise<ForkComparison> {
  const fork = await getBlueprint(ctx, idOrSlug);
  if (!fork.forkedFrom) throw invalid('id', 'is not a fork', 'This blueprint is not a fork, so it has no parent to compare with');
  const parent = await blueprintLoaders(ctx).byId.load(fork.forkedFrom.id);
  // The message names nothing the caller did not send: the parent's id is the parent's own to reveal.
  if (!parent || !(await canRead(ctx, guardOf(parent)))) throw notFound('The parent blueprint of ' + JSON.stringify(idOrSlug));
  const point = await forkPoint(ctx, fork.id, parent.id);
  const base: Plan = point?.base_plan ?? point?.fork_point_plan ?? parent.plan;
  const ahead = diffPlans(base, fork.plan);
  const behind = diffPlans(base, parent.plan);
  const status: ComparisonStatus = ahead.isEmpty ? (behind.isEmpty ? 'identical' : 'behind') : behind.isEmpty ? 'ahead' : 'diverged';
  return {
    fork,
    parent,
    baseVersion: point?.base_plan ? point.base_version : null,
    parentVersion: point?.parent_version ?? null,
    ahead,
    behind,
    status,
    modules: perKey<PlanModule>(ahead.modules, behind.modules, fork.plan.modules, parent.plan.modules, changedModuleFields),
    steps: perKey<PlanStep>(ahead.steps, behind.steps, fork.plan.steps, parent.plan.steps, changedStepFields),
  };
}
