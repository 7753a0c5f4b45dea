/**
 * Structured differences between two plans: the `difference` tool's report, a version's change
 * metadata, and the fork-vs-parent comparison all read from {@link diffPlans}.
 */
import type { Plan, PlanModule, PlanStep } from './plan';
import { diffJson, type JsonDiff } from './algebra.json';
import { changedModuleFields, changedStepFields, planSections, relativeOrderDiffers, type PlanSection } from './algebra.core';

/** A key whose item exists on both sides with different content, and which fields differ. */
export interface ChangedItem {
  key: string;
  fields: string[];
}

/** Keys added and removed (in the order of the side that has them) and keys changed (in `after` order). */
export interface KeyedDiff {
  added: string[];
  removed: string[];
  changed: ChangedItem[];
}

export interface StepsDiff extends KeyedDiff {
  /** True when steps present on both sides run in a different relative order. */
  reordered: boolean;
}

export interface PlanDiff {
  /** Module array order carries no meaning and is not compared; `dependsOn` is compared as a set. */
  modules: KeyedDiff;
  steps: StepsDiff;
  configuration: JsonDiff;
  designSystem: JsonDiff;
  /** Sections with at least one difference, in plan order. */
  sectionsTouched: PlanSection[];
  /** True when the plans are equivalent (no section touched). */
  isEmpty: boolean;
}

/**
 * What changed from `before` to `after`. Modules and steps are matched by key; JSON sections are
 * compared path by path (see {@link diffJson}). `diffPlans(a, b)` and `diffPlans(b, a)` report the same
 * keys with `added` and `removed` swapped.
 */
export function diffPlans(before: Plan, after: Plan): PlanDiff {
  const modules = diffKeyed(before.modules, after.modules, changedModuleFields);
  const steps: StepsDiff = {
    ...diffKeyed(before.steps, after.steps, changedStepFields),
    reordered: relativeOrderDiffers(
      before.steps.map((s) => s.key),
      after.steps.map((s) => s.key),
    ),
  };
  const configuration = diffJson(before.configuration, after.configuration);
  const designSystem = diffJson(before.designSystem, after.designSystem);
  const touched: Record<PlanSection, boolean> = {
    modules: keyedTouched(modules),
    steps: keyedTouched(steps) || steps.reordered,
    configuration: jsonTouched(configuration),
    designSystem: jsonTouched(designSystem),
  };
  const sectionsTouched = planSections.filter((s) => touched[s]);
  return { modules, steps, configuration, designSystem, sectionsTouched, isEmpty: sectionsTouched.length === 0 };
}

function diffKeyed<T extends PlanModule | PlanStep>(before: readonly T[], after: readonly T[], fieldsOf: (a: T, b: T) => string[]): KeyedDiff {
  const beforeByKey = firstByKey(before);
  const afterByKey = firstByKey(after);
  const diff: KeyedDiff = { added: [], removed: [], changed: [] };
  for (const key of beforeByKey.keys()) if (!afterByKey.has(key)) diff.removed.push(key);
  for (const [key, item] of afterByKey) {
    const old = beforeByKey.get(key);
    if (!old) diff.added.push(key);
    else {
      const fields = fieldsOf(old, item);
      if (fields.length > 0) diff.changed.push({ key, fields });
    }
  }
  return diff;
}

function firstByKey<T extends { key: string }>(items: readonly T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) if (!map.has(item.key)) map.set(item.key, item);
  return map;
}

const keyedTouched = (d: KeyedDiff) => d.added.length + d.removed.length + d.changed.length > 0;
const jsonTouched = (d: JsonDiff) => d.added.length + d.removed.length + d.changed.length > 0;
