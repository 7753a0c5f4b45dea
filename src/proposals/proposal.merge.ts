/**
 * The pure part of proposals: what a source changed since the merge base, where it conflicts with the
 * target, and the merge with the reviewer's resolutions. Everything is the plan algebra's three-way diff
 * and merge (`diffPlans`, `mergeThreeWay`), by module key, step key and JSON path.
 */
import { cloneJson, diffPlans, mergeThreeWay, setJsonPath, type JsonDiff, type MergeConflict } from '../plans/algebra';
import type { Plan, PlanModule, PlanStep } from '../plans/plan';

/** What the source did to one module or step since the base. */
export interface KeyChange {
  key: string;
  change: 'added' | 'removed' | 'changed';
  /** The fields that differ from the base (changed only), in plan (camelCase) names. */
  fields: string[];
}

export interface ProposalChanges {
  modules: KeyChange[];
  steps: KeyChange[];
  /** The source runs the steps it shares with the base in another order. */
  stepsReordered: boolean;
  configuration: JsonDiff;
  designSystem: JsonDiff;
  isEmpty: boolean;
}

export type ConflictKind = 'module' | 'step' | 'configuration' | 'designSystem';

/** Conflict kinds by their wire names (REST, MCP, resolutions), and back. */
export const conflictKindByWire: Readonly<Record<string, ConflictKind>> = {
  module: 'module',
  step: 'step',
  configuration: 'configuration',
  design_system: 'designSystem',
};
export const wireConflictKind = (kind: ConflictKind): string => (kind === 'designSystem' ? 'design_system' : kind);

/**
 * A key both sides changed differently since the base (or a change of one side the merge cannot keep in
 * a valid plan, e.g. a dependency that closes a cycle with the other side's). `base`, `ours` (the target)
 * and `theirs` (the source) are absent where the item does not exist on that side.
 */
export interface ProposalConflict {
  kind: ConflictKind;
  key: string;
  reason: string;
  base?: unknown;
  ours?: unknown;
  theirs?: unknown;
}

export interface Resolution {
  kind: ConflictKind;
  key: string;
  take: 'ours' | 'theirs' | 'custom';
  /** `custom`: the module or step (plan form, same key) or JSON value to keep. */
  value?: unknown;
}

function keyChanges(d: { added: string[]; removed: string[]; changed: { key: string; fields: string[] }[] }): KeyChange[] {
  return [
    ...d.added.map((key) => ({ key, change: 'added' as const, fields: [] })),
    ...d.changed.map((c) => ({ key: c.key, change: 'changed' as const, fields: c.fields })),
    ...d.removed.map((key) => ({ key, change: 'removed' as const, fields: [] })),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What the source changed since the base: per module and step key, and per JSON path. */
export function proposalChanges(base: Plan, source: Plan): ProposalChanges {
  const d = diffPlans(base, source);
  return {
    modules: keyChanges(d.modules),
    steps: keyChanges(d.steps),
    stepsReordered: d.steps.reordered,
    configuration: d.configuration,
    designSystem: d.designSystem,
    isEmpty: d.isEmpty,
  };
}

const conflictKinds = new Set<string>(['module', 'step', 'configuration', 'designSystem']);

/**
 * The merge's conflicts a reviewer decides. A repair (a dependency or item the merge dropped to keep the
 * plan valid) carries no versions of its own: it gets the three sides' items, so `theirs` means the source's.
 */
function toProposalConflicts(conflicts: MergeConflict[], sides: { base: Plan; target: Plan; source: Plan }): ProposalConflict[] {
  const item = (plan: Plan, kind: string, key: string) => (kind === 'module' ? plan.modules : plan.steps).find((i) => i.key === key);
  const seen = new Set<string>();
  const out: ProposalConflict[] = [];
  for (const c of conflicts) {
    // Run order: the target's order is kept (both reordered); it is not a key a reviewer chooses for.
    if (!conflictKinds.has(c.kind)) continue;
    const id = `${c.kind}\u0000${c.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if ((c.kind === 'module' || c.kind === 'step') && c.base === undefined && c.ours === undefined && c.theirs === undefined) {
      const [b, o, t] = [item(sides.base, c.kind, c.key), item(sides.target, c.kind, c.key), item(sides.source, c.kind, c.key)];
      out.push({
        kind: c.kind,
        key: c.key,
        reason: c.reason,
        ...(b ? { base: cloneJson(b) } : {}),
        ...(o ? { ours: cloneJson(o) } : {}),
        ...(t ? { theirs: cloneJson(t) } : {}),
      });
      continue;
    }
    out.push({
      kind: c.kind as ConflictKind,
      key: c.key,
      reason: c.reason,
      ...(c.base !== undefined ? { base: c.base } : {}),
      ...(c.ours !== undefined ? { ours: c.ours } : {}),
      ...(c.theirs !== undefined ? { theirs: c.theirs } : {}),
    });
  }
  return out;
}

/** The conflicts of merging `source` into `target` from `base` (computed, never stored). */
export function proposalConflicts(base: Plan, target: Plan, source: Plan): ProposalConflict[] {
  return toProposalConflicts(mergeThreeWay(base, target, source).conflicts, { base, target, source });
}

export interface ProposalMerge {
  /** The merged plan with every resolution applied (may break a plan rule when a resolution does). */
  plan: Plan;
  conflicts: ProposalConflict[];
  /** Conflicts no resolution names: the merge must not happen while any is left. */
  unresolved: ProposalConflict[];
  /** Resolutions that name no conflict. */
  unknown: Resolution[];
}

const conflictId = (kind: string, key: string) => `${kind}\u0000${key}`;

/**
 * Three-way merge of a proposal: every change only one side made is kept, the same change on both sides
 * is kept once, and each conflict takes what its resolution says (`ours` = the target's version, `theirs` =
 * the source's, `custom` = the value given; an absent version removes the item). With no resolution a
 * conflict keeps the target's version and is listed in `unresolved`.
 */
export function mergeProposalPlans(base: Plan, target: Plan, source: Plan, resolutions: readonly Resolution[] = []): ProposalMerge {
  const merged = mergeThreeWay(base, target, source);
  const conflicts = toProposalConflicts(merged.conflicts, { base, target, source });
  const byId = new Map(conflicts.map((c) => [conflictId(c.kind, c.key), c]));
  const plan = merged.plan;
  const resolved = new Set<string>();
  const unknown: Resolution[] = [];
  for (const r of resolutions) {
    const id = conflictId(r.kind, r.key);
    const conflict = byId.get(id);
    if (!conflict) {
      unknown.push(r);
      continue;
    }
    resolved.add(id);
    if (r.take === 'ours') continue; // the merge already kept the target's version
    const value = r.take === 'theirs' ? conflict.theirs : r.value;
    if (r.kind === 'module') placeItem(plan.modules, r.key, value as PlanModule | undefined, source.modules);
    else if (r.kind === 'step') placeItem(plan.steps, r.key, value as PlanStep | undefined, source.steps);
    else plan[r.kind] = setJsonPath(plan[r.kind], r.key, value);
  }
  return { plan, conflicts, unresolved: conflicts.filter((c) => !resolved.has(conflictId(c.kind, c.key))), unknown };
}

/**
 * Puts `value` under `key` in `items` (or removes it when undefined): in place when the key is there,
 * else after the nearest item that precedes it in `order` (the source's order), else first.
 */
function placeItem<T extends { key: string }>(items: T[], key: string, value: T | undefined, order: readonly { key: string }[]): void {
  const at = items.findIndex((i) => i.key === key);
  if (value === undefined) {
    if (at >= 0) items.splice(at, 1);
    return;
  }
  const copy = cloneJson(value);
  if (at >= 0) {
    items[at] = copy;
    return;
  }
  const position = order.findIndex((i) => i.key === key);
  for (let i = position - 1; i >= 0; i--) {
    const before = items.findIndex((x) => x.key === order[i]!.key);
    if (before >= 0) {
      items.splice(before + 1, 0, copy);
      return;
    }
  }
  items.unshift(copy);
}
