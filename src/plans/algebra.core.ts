/**
 * Building blocks shared by the plan algebra: equality of modules and steps, restriction to a set of
 * modules, repair of a combined plan into a valid one, and merging of two run orders.
 */
import type { Plan, PlanModule, PlanStep } from './plan';
import { cloneJson, deepEqual } from './algebra.json';
import { appendTo } from './algebra.graph';

/** The four sections of a plan, in the order reports list them. */
export type PlanSection = 'modules' | 'steps' | 'configuration' | 'designSystem';
export const planSections: readonly PlanSection[] = ['modules', 'steps', 'configuration', 'designSystem'];

/** Fields of a module that can change under the same key, in the order diffs list them. */
export const moduleFields = ['name', 'summary', 'kind', 'dependsOn'] as const;
/** Fields of a step that can change under the same key, in the order diffs list them. */
export const stepFields = ['moduleKey', 'title', 'instructions', 'acceptance'] as const;

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/** Fields in which two modules differ. `dependsOn` is a set: its order carries no meaning. */
export function changedModuleFields(a: PlanModule, b: PlanModule): string[] {
  return moduleFields.filter((f) => (f === 'dependsOn' ? !sameSet(a.dependsOn, b.dependsOn) : a[f] !== b[f]));
}

/** Fields in which two steps differ. `acceptance` is a list: its order is kept as written. */
export function changedStepFields(a: PlanStep, b: PlanStep): string[] {
  return stepFields.filter((f) => !deepEqual(a[f], b[f]));
}

/** Same key and same content (see {@link changedModuleFields}). */
export function sameModule(a: PlanModule, b: PlanModule): boolean {
  return a.key === b.key && changedModuleFields(a, b).length === 0;
}

/** Same key and same content. */
export function sameStep(a: PlanStep, b: PlanStep): boolean {
  return a.key === b.key && changedStepFields(a, b).length === 0;
}

export function cloneModule(m: PlanModule): PlanModule {
  return { key: m.key, name: m.name, summary: m.summary, kind: m.kind, dependsOn: [...m.dependsOn] };
}

export function cloneStep(s: PlanStep): PlanStep {
  return { key: s.key, moduleKey: s.moduleKey, title: s.title, instructions: s.instructions, acceptance: [...s.acceptance] };
}

/** A deep copy of a plan: results of the algebra never share objects with its inputs. */
export function clonePlan(plan: Plan): Plan {
  return {
    modules: plan.modules.map(cloneModule),
    steps: plan.steps.map(cloneStep),
    configuration: cloneJson(plan.configuration),
    designSystem: cloneJson(plan.designSystem),
  };
}

/**
 * The plan cut down to the modules in `keep`: their dependencies on dropped modules removed, and the
 * steps of dropped modules removed. Order, configuration and design system are kept. The base of
 * subtract, prune, distill and splice; a valid plan stays valid.
 */
export function restrictPlan(plan: Plan, keep: Iterable<string>): Plan {
  const kept = new Set(keep);
  const modules = plan.modules.filter((m) => kept.has(m.key)).map((m) => ({ ...cloneModule(m), dependsOn: m.dependsOn.filter((d) => kept.has(d)) }));
  return {
    modules,
    steps: plan.steps.filter((s) => kept.has(s.moduleKey)).map(cloneStep),
    configuration: cloneJson(plan.configuration),
    designSystem: cloneJson(plan.designSystem),
  };
}

/** Why {@link repairPlan} dropped something. */
export type RepairReason = 'duplicate-key' | 'self-dependency' | 'missing-dependency' | 'cycle' | 'missing-module';

/** One thing {@link repairPlan} dropped: a module, a step, or one dependency of a module. */
export interface PlanRepair {
  kind: 'module' | 'step';
  key: string;
  reason: RepairReason;
  /** For a dropped dependency: the module it named. */
  dependency?: string;
}

/**
 * Makes a combined plan valid by dropping, never inventing: later modules and steps with a key
 * already used, self-dependencies, dependencies naming no module, steps naming no module, and the
 * dependency edges that close a cycle. Edges for which `preferEdge` answers true are kept first
 * (a merge prefers our edges); otherwise edges are considered in array order, so the result is
 * deterministic. A valid plan comes back unchanged (as a copy) with no repairs.
 */
export function repairPlan(plan: Plan, options: { preferEdge?: (from: string, to: string) => boolean } = {}): { plan: Plan; repairs: PlanRepair[] } {
  const repairs: PlanRepair[] = [];
  const modules: PlanModule[] = [];
  const moduleKeys = new Set<string>();
  for (const m of plan.modules) {
    if (moduleKeys.has(m.key)) repairs.push({ kind: 'module', key: m.key, reason: 'duplicate-key' });
    else {
      moduleKeys.add(m.key);
      modules.push(cloneModule(m));
    }
  }
  for (const m of modules) {
    const kept: string[] = [];
    for (const d of m.dependsOn) {
      if (d === m.key) repairs.push({ kind: 'module', key: m.key, reason: 'self-dependency', dependency: d });
      else if (!moduleKeys.has(d)) repairs.push({ kind: 'module', key: m.key, reason: 'missing-dependency', dependency: d });
      else if (!kept.includes(d)) kept.push(d);
    }
    m.dependsOn = kept;
  }
  repairs.push(...breakCycles(modules, options.preferEdge ?? (() => false)));
  const steps: PlanStep[] = [];
  const stepKeys = new Set<string>();
  for (const s of plan.steps) {
    if (stepKeys.has(s.key)) repairs.push({ kind: 'step', key: s.key, reason: 'duplicate-key' });
    else if (!moduleKeys.has(s.moduleKey)) repairs.push({ kind: 'step', key: s.key, reason: 'missing-module' });
    else {
      stepKeys.add(s.key);
      steps.push(cloneStep(s));
    }
  }
  return { plan: { modules, steps, configuration: cloneJson(plan.configuration), designSystem: cloneJson(plan.designSystem) }, repairs };
}

/** Removes, in place, the edges that close a cycle; modules' dependencies must already resolve. */
function breakCycles(modules: PlanModule[], preferEdge: (from: string, to: string) => boolean): PlanRepair[] {
  if (isAcyclic(modules)) return []; // the common case stays linear
  const edges = modules.flatMap((m) => m.dependsOn.map((d) => [m.key, d] as const));
  const ordered = [...edges.filter(([f, t]) => preferEdge(f, t)), ...edges.filter(([f, t]) => !preferEdge(f, t))];
  const graph = new Map<string, Set<string>>(modules.map((m) => [m.key, new Set<string>()]));
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (k === to) return true;
      if (seen.has(k)) continue;
      seen.add(k);
      stack.push(...graph.get(k)!);
    }
    return false;
  };
  const dropped = new Set<string>();
  const repairs: PlanRepair[] = [];
  for (const [from, to] of ordered) {
    // Adding from -> to closes a cycle exactly when `to` already reaches `from`.
    if (reaches(to, from)) {
      dropped.add(`${from}\u0000${to}`);
      repairs.push({ kind: 'module', key: from, reason: 'cycle', dependency: to });
    } else graph.get(from)!.add(to);
  }
  for (const m of modules) m.dependsOn = m.dependsOn.filter((d) => !dropped.has(`${m.key}\u0000${d}`));
  return repairs;
}

function isAcyclic(modules: readonly PlanModule[]): boolean {
  const waiting = new Map(modules.map((m) => [m.key, m.dependsOn.length]));
  const dependents = new Map<string, string[]>();
  for (const m of modules) for (const d of m.dependsOn) appendTo(dependents, d, m.key);
  const ready = modules.filter((m) => m.dependsOn.length === 0).map((m) => m.key);
  let done = 0;
  while (ready.length > 0) {
    const k = ready.pop()!;
    done++;
    for (const dep of dependents.get(k) ?? []) {
      const left = waiting.get(dep)! - 1;
      waiting.set(dep, left);
      if (left === 0) ready.push(dep);
    }
  }
  return done === modules.length;
}

/** True when the keys both sequences hold appear in a different relative order. */
export function relativeOrderDiffers(a: readonly string[], b: readonly string[]): boolean {
  const inA = new Set(a);
  const inB = new Set(b);
  const commonA = a.filter((k) => inB.has(k));
  const commonB = b.filter((k) => inA.has(k));
  return commonA.some((k, i) => k !== commonB[i]);
}

/**
 * Merges two orders: `skeleton` as is, then each key only `other` has, placed right after the
 * nearest key before it in `other` that is already placed; failing that, right before the nearest
 * placed key after it; failing that, at the end. So `[a, b]` woven with `[a, n, b]` gives
 * `[a, n, b]`, and two disjoint orders are concatenated.
 */
export function weaveOrder(skeleton: readonly string[], other: readonly string[]): string[] {
  // A doubly linked list keeps each insertion O(1): run orders can hold thousands of steps.
  const head = '\u0000head';
  const next = new Map<string, string | undefined>([[head, undefined]]);
  const prev = new Map<string, string>();
  let tail = head;
  const insertAfter = (anchor: string, key: string) => {
    const after = next.get(anchor);
    next.set(anchor, key);
    next.set(key, after);
    prev.set(key, anchor);
    if (after === undefined) tail = key;
    else prev.set(after, key);
  };
  for (const key of skeleton) if (!next.has(key)) insertAfter(tail, key);
  other.forEach((key, i) => {
    if (next.has(key)) return;
    let anchor = tail;
    const before = findLast(other, i, (k) => next.has(k));
    if (before !== undefined) anchor = before;
    else {
      const after = other.slice(i + 1).find((k) => next.has(k));
      if (after !== undefined) anchor = prev.get(after)!;
    }
    insertAfter(anchor, key);
  });
  const order: string[] = [];
  for (let k = next.get(head); k !== undefined; k = next.get(k)) order.push(k);
  return order;
}

function findLast(items: readonly string[], end: number, test: (k: string) => boolean): string | undefined {
  for (let j = end - 1; j >= 0; j--) if (test(items[j]!)) return items[j];
  return undefined;
}
