/**
 * Set operations on plans, by key: union (breed, weave), intersection, subtraction and pruning.
 * Modules and steps are identified by their key alone, which is why keys are kebab-case and unique.
 */
import type { Plan, PlanModule, PlanStep } from './plan';
import { emptyPlan } from './plan';
import { cloneJson, intersectJson, mergeJsonFirstWins } from './algebra.json';
import { cloneModule, cloneStep, repairPlan, restrictPlan, sameModule, sameStep, weaveOrder, type PlanRepair } from './algebra.core';
import { appendTo, reachableFrom } from './algebra.graph';

/** What a conflict is about: a module or step (by key), or a path in a JSON section. */
export type ConflictKind = 'module' | 'step' | 'configuration' | 'designSystem';

/** One input's version of a conflicting item; `source` is the input's index in the list given. */
export interface Variant<T = unknown> {
  source: number;
  value: T;
}

/**
 * Inputs that hold different versions of one item. `key` is the module or step key, or for
 * `configuration`/`designSystem` the dotted JSON path (`theme.colors.primary`). `variants` lists every
 * input holding the item, in input order; the first one is what the result kept.
 */
export interface Conflict {
  kind: ConflictKind;
  key: string;
  variants: Variant[];
}

export interface UnionResult {
  plan: Plan;
  conflicts: Conflict[];
  /** What had to be dropped to keep the result valid; always empty when every input is valid. */
  repairs: PlanRepair[];
}

/**
 * Everything from every plan, merged by key. For a key held by several plans the first plan's
 * version wins, and a key whose versions differ is reported as a conflict (for breed, where the agent
 * resolves them). `configuration` and `designSystem` are merged deeply, first plan winning on each
 * disagreeing leaf. Run order: the first plan's steps, with each later plan's new steps woven in after
 * the step they follow there (see {@link weaveOrder}).
 *
 * Valid inputs give a valid result: the winning version of a module comes from the first plan that
 * has it and names only modules of that plan, so each dependency was first defined in the same or
 * an earlier plan, and a cycle would have to lie within one input. Anything invalid in the inputs is
 * dropped and listed in `repairs`.
 */
export function unionPlans(plans: readonly Plan[]): UnionResult {
  if (plans.length === 0) return { plan: emptyPlan(), conflicts: [], repairs: [] };
  const modules = unionByKey(
    plans.map((p) => p.modules),
    sameModule,
    'module',
  );
  const steps = unionByKey(
    plans.map((p) => p.steps),
    sameStep,
    'step',
  );
  const configuration = mergeJsonFirstWins(plans.map((p) => p.configuration));
  const designSystem = mergeJsonFirstWins(plans.map((p) => p.designSystem));
  const combined: Plan = {
    modules: orderBy(
      modules.winners,
      plans.map((p) => p.modules.map((m) => m.key)),
    ).map(cloneModule),
    steps: orderBy(
      steps.winners,
      plans.map((p) => p.steps.map((s) => s.key)),
    ).map(cloneStep),
    configuration: configuration.value,
    designSystem: designSystem.value,
  };
  const { plan, repairs } = repairPlan(combined);
  const conflicts: Conflict[] = [
    ...modules.conflicts,
    ...steps.conflicts,
    ...configuration.conflicts.map((c) => ({ kind: 'configuration' as const, key: c.path, variants: c.variants })),
    ...designSystem.conflicts.map((c) => ({ kind: 'designSystem' as const, key: c.path, variants: c.variants })),
  ];
  return { plan, conflicts, repairs };
}

function unionByKey<T extends PlanModule | PlanStep>(
  lists: readonly (readonly T[])[],
  same: (a: T, b: T) => boolean,
  kind: 'module' | 'step',
): { winners: Map<string, T>; conflicts: Conflict[] } {
  const holders = new Map<string, Variant<T>[]>();
  lists.forEach((list, source) => {
    const seen = new Set<string>();
    for (const item of list) {
      if (seen.has(item.key)) continue; // a duplicate inside one input: its first occurrence counts
      seen.add(item.key);
      appendTo(holders, item.key, { source, value: item });
    }
  });
  const winners = new Map<string, T>();
  const conflicts: Conflict[] = [];
  for (const [key, variants] of holders) {
    const first = variants[0]!.value;
    winners.set(key, first);
    if (variants.some((v) => !same(v.value, first))) {
      conflicts.push({ kind, key, variants: variants.map((v) => ({ source: v.source, value: cloneJson(v.value) })) });
    }
  }
  return { winners, conflicts };
}

function orderBy<T>(items: Map<string, T>, orders: readonly (readonly string[])[]): T[] {
  const order = orders.reduce<string[]>((acc, next) => weaveOrder(acc, next), []);
  return order.map((k) => items.get(k)!);
}

/**
 * What every plan has: modules whose key is in all plans (as the first plan has them), their
 * dependencies limited to the modules kept, and the kept modules' steps whose key is in all plans.
 * `configuration` and `designSystem` keep the keys all plans hold with equal values (see
 * {@link intersectJson}). No plans: the empty plan. Deterministic and valid for valid inputs.
 */
export function intersectPlans(plans: readonly Plan[]): Plan {
  if (plans.length === 0) return emptyPlan();
  const [first, ...rest] = plans as [Plan, ...Plan[]];
  const inAll = (keysOf: (p: Plan) => string[]) => {
    const sets = rest.map((p) => new Set(keysOf(p)));
    return (key: string) => sets.every((s) => s.has(key));
  };
  const moduleInAll = inAll((p) => p.modules.map((m) => m.key));
  const stepInAll = inAll((p) => p.steps.map((s) => s.key));
  const restricted = restrictPlan(
    first,
    first.modules.filter((m) => moduleInAll(m.key)).map((m) => m.key),
  );
  return {
    modules: restricted.modules,
    steps: restricted.steps.filter((s) => stepInAll(s.key)),
    configuration: intersectJson(plans.map((p) => p.configuration)),
    designSystem: intersectJson(plans.map((p) => p.designSystem)),
  };
}

/**
 * The modules of `a` whose key `b` does not have, with their steps; dependencies on removed modules
 * are dropped. `a`'s configuration and design system are kept whole: what is left is still built on
 * `a`'s stack. Deterministic and valid for a valid `a`.
 */
export function subtractPlans(a: Plan, b: Plan): Plan {
  const inB = new Set(b.modules.map((m) => m.key));
  return restrictPlan(
    a,
    a.modules.filter((m) => !inB.has(m.key)).map((m) => m.key),
  );
}

/**
 * The modules reachable from `roots` through dependencies (the roots themselves included) and their
 * steps; everything else is removed. Roots naming no module are ignored. Pruning from every module
 * returns the plan unchanged.
 */
export function prunePlan(plan: Plan, roots: Iterable<string>): Plan {
  return restrictPlan(plan, reachableFrom(plan, roots));
}
