/**
 * Three-way merge of plans (upstream_merge): `base` is the plan at the fork point, `ours` the fork
 * today, `theirs` the upstream today. Each module, step and JSON leaf is merged on its own, the way
 * version control merges lines, and shields (upstream_shield) hold chosen parts at our version.
 */
import type { JsonObject, Plan, PlanModule, PlanStep } from './plan';
import { cloneJson, concatPath, deepEqual, diffJson, isJsonObject, jsonPath, own, pathWithin, setOwn, unionKeys } from './algebra.json';
import {
  cloneModule,
  cloneStep,
  relativeOrderDiffers,
  repairPlan,
  sameModule,
  sameStep,
  weaveOrder,
  type PlanSection,
  type RepairReason,
} from './algebra.core';
import type { ConflictKind } from './algebra.sets';

/** Parts of a plan held at our version whatever upstream did. */
export interface MergePins {
  /** Whole sections: `['designSystem']` ignores every upstream change to the design system. */
  sections?: PlanSection[];
  /** Module keys: the module and every step belonging to it (on any side) stay as ours has them. */
  modules?: string[];
  /** JSON paths with their section, e.g. `configuration.database` (and everything under it). */
  paths?: string[];
}

export interface MergeOptions {
  pinned?: MergePins;
}

export type MergeConflictReason = 'both-changed' | 'both-added' | 'changed-and-removed' | 'both-reordered' | RepairReason;

/**
 * A place where the merge could not honour both sides. The result keeps ours (or, when ours is not
 * possible in a valid plan, drops the item); `base`/`ours`/`theirs` hold the versions that disagreed
 * (absent = the item does not exist on that side). `stepOrder` conflicts have key `steps`.
 */
export interface MergeConflict {
  kind: ConflictKind | 'stepOrder';
  key: string;
  reason: MergeConflictReason;
  base?: unknown;
  ours?: unknown;
  theirs?: unknown;
  /** For a dependency dropped to keep the plan valid: the module it named. */
  dependency?: string;
}

/** An upstream change a pin held back. */
export interface ShieldedChange {
  kind: ConflictKind;
  key: string;
}

export interface MergeResult {
  plan: Plan;
  conflicts: MergeConflict[];
  shielded: ShieldedChange[];
}

/**
 * Three-way merge. For each module key, step key and JSON leaf: a change on one side only is taken;
 * the same change on both sides is taken once; different changes on both sides are a conflict and
 * ours is kept. Deleting is a change like any other. Run order: the order of the side that reordered
 * the steps they share with `base` (ours when both or neither did), with the other side's new steps
 * woven in after the step they follow there. Module order follows the same rule.
 *
 * The result is always a valid plan: a module ours still has but upstream removed comes back when a
 * merged step or dependency needs it; steps and dependencies naming a module neither side keeps are
 * dropped; a dependency upstream added that closes a cycle with ours is dropped. Each is reported.
 * `mergeThreeWay(base, x, base)` returns `x`; so does `mergeThreeWay(base, base, x)`, except that a module
 * `x` left equivalent to base (same dependencies in another order) keeps base's order.
 */
export function mergeThreeWay(base: Plan, ours: Plan, theirs: Plan, options: MergeOptions = {}): MergeResult {
  const pins = options.pinned ?? {};
  const pinnedSection = new Set(pins.sections ?? []);
  const pinnedModule = new Set(pins.modules ?? []);
  const conflicts: MergeConflict[] = [];
  const shielded: ShieldedChange[] = [];

  const modules = mergeByKey(
    'module',
    base.modules,
    ours.modules,
    theirs.modules,
    sameModule,
    conflicts,
    shielded,
    (key) => pinnedSection.has('modules') || pinnedModule.has(key),
  );
  const steps = mergeByKey(
    'step',
    base.steps,
    ours.steps,
    theirs.steps,
    sameStep,
    conflicts,
    shielded,
    (_key, versions) => pinnedSection.has('steps') || versions.some((s) => s !== undefined && pinnedModule.has(s.moduleKey)),
  );
  restoreNeededModules(modules, steps, base, ours, theirs, conflicts);

  const pathPins = [...(pins.paths ?? []), ...[...pinnedSection].filter((s) => s === 'configuration' || s === 'designSystem')];
  const json = (section: 'configuration' | 'designSystem') => mergeJson(base[section], ours[section], theirs[section], section, pathPins, conflicts, shielded);

  const stepOrder = mergeOrder(base.steps, ours.steps, theirs.steps, pinnedSection.has('steps'));
  if (stepOrder.bothReordered) conflicts.push({ kind: 'stepOrder', key: 'steps', reason: 'both-reordered' });
  const merged: Plan = {
    modules: mergeOrder(base.modules, ours.modules, theirs.modules, pinnedSection.has('modules'))
      .order.filter((k) => modules.has(k))
      .map((k) => cloneModule(modules.get(k)!)),
    steps: stepOrder.order.filter((k) => steps.has(k)).map((k) => cloneStep(steps.get(k)!)),
    configuration: json('configuration'),
    designSystem: json('designSystem'),
  };

  const oursEdges = new Set(ours.modules.flatMap((m) => m.dependsOn.map((d) => `${m.key}\u0000${d}`)));
  const { plan, repairs } = repairPlan(merged, { preferEdge: (from, to) => oursEdges.has(`${from}\u0000${to}`) });
  for (const r of repairs) {
    conflicts.push({ kind: r.kind, key: r.key, reason: r.reason, ...(r.dependency !== undefined ? { dependency: r.dependency } : {}) });
  }
  return { plan, conflicts, shielded };
}

function firstByKey<T extends { key: string }>(items: readonly T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) if (!map.has(item.key)) map.set(item.key, item);
  return map;
}

function mergeByKey<T extends PlanModule | PlanStep>(
  kind: 'module' | 'step',
  base: readonly T[],
  ours: readonly T[],
  theirs: readonly T[],
  same: (a: T, b: T) => boolean,
  conflicts: MergeConflict[],
  shielded: ShieldedChange[],
  isPinned: (key: string, versions: (T | undefined)[]) => boolean,
): Map<string, T> {
  const [b, o, t] = [firstByKey(base), firstByKey(ours), firstByKey(theirs)];
  const eq = (x: T | undefined, y: T | undefined) => (x === undefined || y === undefined ? x === y : same(x, y));
  const result = new Map<string, T>();
  for (const key of new Set([...o.keys(), ...t.keys(), ...b.keys()])) {
    const [vb, vo, vt] = [b.get(key), o.get(key), t.get(key)];
    let value: T | undefined;
    if (isPinned(key, [vb, vo, vt])) {
      value = vo;
      if (!eq(vt, vb) && !eq(vt, vo)) shielded.push({ kind, key });
    } else if (eq(vt, vb)) value = vo;
    // Checked before "both agree" so that a side's exact version wins over an equivalent one.
    else if (eq(vo, vb)) value = vt;
    else if (eq(vo, vt)) value = vo;
    else {
      value = vo;
      const reason = vb === undefined ? 'both-added' : vo === undefined || vt === undefined ? 'changed-and-removed' : 'both-changed';
      conflicts.push({ kind, key, reason, ...versions(vb, vo, vt) });
    }
    if (value !== undefined) result.set(key, value);
  }
  return result;
}

function versions(base: unknown, ours: unknown, theirs: unknown): Pick<MergeConflict, 'base' | 'ours' | 'theirs'> {
  return {
    ...(base !== undefined ? { base: cloneJson(base) } : {}),
    ...(ours !== undefined ? { ours: cloneJson(ours) } : {}),
    ...(theirs !== undefined ? { theirs: cloneJson(theirs) } : {}),
  };
}

/**
 * Brings back, as ours has it, every module the merge removed (upstream deleted it) that a merged
 * step or dependency still names: keeping our work beats silently dropping it. Repeats until no
 * such reference is left, since a restored module may itself need another.
 */
function restoreNeededModules(
  modules: Map<string, PlanModule>,
  steps: Map<string, PlanStep>,
  base: Plan,
  ours: Plan,
  theirs: Plan,
  conflicts: MergeConflict[],
): void {
  const oursByKey = firstByKey(ours.modules);
  const needed = () => [...[...steps.values()].map((s) => s.moduleKey), ...[...modules.values()].flatMap((m) => m.dependsOn)];
  for (let missing = needed().filter((k) => !modules.has(k) && oursByKey.has(k)); missing.length > 0;) {
    for (const key of new Set(missing)) {
      modules.set(key, oursByKey.get(key)!);
      const [vb, vt] = [firstByKey(base.modules).get(key), firstByKey(theirs.modules).get(key)];
      conflicts.push({ kind: 'module', key, reason: 'changed-and-removed', ...versions(vb, oursByKey.get(key), vt) });
    }
    missing = needed().filter((k) => !modules.has(k) && oursByKey.has(k));
  }
}

/**
 * The merged order of keyed items: the side that reordered what it shares with base sets the
 * skeleton (ours when neither did, when both did, or when ours is pinned); the other side's keys
 * are woven in. Keys the merge dropped are filtered out by the caller.
 */
function mergeOrder(
  base: readonly { key: string }[],
  ours: readonly { key: string }[],
  theirs: readonly { key: string }[],
  oursPinned: boolean,
): { order: string[]; bothReordered: boolean } {
  const [kb, ko, kt] = [base.map((x) => x.key), ours.map((x) => x.key), theirs.map((x) => x.key)];
  const oursMoved = relativeOrderDiffers(kb, ko);
  const theirsMoved = relativeOrderDiffers(kb, kt);
  const bothReordered = !oursPinned && oursMoved && theirsMoved && relativeOrderDiffers(ko, kt);
  if (!oursPinned && !oursMoved && theirsMoved) return { order: weaveOrder(kt, ko), bothReordered };
  return { order: weaveOrder(ko, kt), bothReordered };
}

/**
 * Three-way merge of a JSON section. Returns ours where a pinned path holds; recurses into objects
 * both sides kept as objects; otherwise a change on one side wins and different changes on both
 * sides are a conflict resolved to ours. Conflict keys are paths inside the section.
 */
function mergeJson(
  base: JsonObject,
  ours: JsonObject,
  theirs: JsonObject,
  section: 'configuration' | 'designSystem',
  pins: readonly string[],
  conflicts: MergeConflict[],
  shielded: ShieldedChange[],
): JsonObject {
  // Lists each upstream change held back, not just the pinned path, so a report can name them.
  const shieldJson = (b: unknown, t: unknown, path: string) => {
    if (!isJsonObject(b) || !isJsonObject(t)) return void shielded.push({ kind: section, key: path });
    const d = diffJson(b, t);
    for (const p of [...d.added, ...d.removed, ...d.changed].sort()) {
      shielded.push({ kind: section, key: concatPath(path, p) });
    }
  };
  const merge = (b: unknown, o: unknown, t: unknown, path: string): unknown => {
    const here = concatPath(section, path);
    if (pins.some((p) => pathWithin(here, p))) {
      if (!deepEqual(t, b) && !deepEqual(t, o)) shieldJson(b, t, path);
      return cloneJson(o);
    }
    if (deepEqual(o, t)) return cloneJson(o);
    const bothObjects = isJsonObject(o) && isJsonObject(t);
    const recurse = () => {
      const bo = isJsonObject(b) ? b : undefined;
      const [oo, to] = [o as JsonObject, t as JsonObject];
      const out: JsonObject = {};
      for (const key of unionKeys([oo, to, bo])) {
        const value = merge(own(bo, key), own(oo, key), own(to, key), jsonPath(path, key));
        if (value !== undefined) setOwn(out, key, value);
      }
      return out;
    };
    // A pin further down must not be overwritten by taking a whole subtree from upstream.
    if (pins.some((p) => pathWithin(p, here))) {
      if (bothObjects) return recurse();
      if (!deepEqual(t, b)) shieldJson(b, t, path);
      return cloneJson(o);
    }
    if (deepEqual(o, b)) return cloneJson(t);
    if (deepEqual(t, b)) return cloneJson(o);
    if (bothObjects) return recurse();
    const reason = b === undefined ? 'both-added' : o === undefined || t === undefined ? 'changed-and-removed' : 'both-changed';
    conflicts.push({ kind: section, key: path, reason, ...versions(b, o, t) });
    return cloneJson(o);
  };
  const value = merge(base, ours, theirs, '');
  return isJsonObject(value) ? value : {};
}
