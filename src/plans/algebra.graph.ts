/**
 * The module dependency graph of a plan: order, levels, clusters, reachability, critical path and
 * parallel lanes. An edge goes from a module to each module it depends on. Every function here is
 * total: dependencies naming no module are ignored, and modules caught in a cycle (which a valid plan
 * never has) are placed last rather than making the call throw.
 */
import type { Plan } from './plan';

type ModulesOf = Pick<Plan, 'modules'>;

/** Appends to the list under `key`, creating it; in place, so grouping n items stays linear. */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Each module's dependencies that name a module of the plan, without duplicates or self-loops. */
export function dependencyMap(plan: ModulesOf): Map<string, string[]> {
  const keys = new Set(plan.modules.map((m) => m.key));
  const deps = new Map<string, string[]>();
  for (const m of plan.modules) {
    if (deps.has(m.key)) continue; // a duplicate key: the first module holding it counts
    deps.set(
      m.key,
      [...new Set(m.dependsOn)].filter((d) => d !== m.key && keys.has(d)),
    );
  }
  return deps;
}

/**
 * Module keys with every module after all of its dependencies. Among modules that are ready at the
 * same time the smallest key goes first, so the order depends only on the graph, never on array order.
 * Modules on a cycle cannot be ordered; they come last, sorted by key.
 */
export function topologicalOrder(plan: ModulesOf): string[] {
  const deps = dependencyMap(plan);
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [key, ds] of deps) {
    waitingOn.set(key, ds.length);
    for (const d of ds) appendTo(dependents, d, key);
  }
  // A sorted array as priority queue: plans hold at most a few hundred modules.
  const ready = [...deps.keys()].filter((k) => waitingOn.get(k) === 0).sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const key = ready.shift()!;
    order.push(key);
    for (const dependent of dependents.get(key) ?? []) {
      const left = waitingOn.get(dependent)! - 1;
      waitingOn.set(dependent, left);
      if (left === 0) insertSorted(ready, dependent);
    }
  }
  if (order.length < deps.size) {
    const placed = new Set(order);
    order.push(...[...deps.keys()].filter((k) => !placed.has(k)).sort());
  }
  return order;
}

function insertSorted(sorted: string[], value: string): void {
  let i = 0;
  while (i < sorted.length && sorted[i]! < value) i++;
  sorted.splice(i, 0, value);
}

/**
 * The level of each module: 0 for a module with no dependencies, otherwise one more than its
 * deepest dependency. Modules of one level never depend on each other, so they can be built in
 * parallel once the lower levels are done.
 */
export function moduleLevels(plan: ModulesOf): Map<string, number> {
  const deps = dependencyMap(plan);
  const levels = new Map<string, number>();
  for (const key of topologicalOrder(plan)) {
    // On a cycle a dependency may not have a level yet; counting it as 0 keeps the function total.
    const below = deps.get(key)!.map((d) => levels.get(d) ?? 0);
    levels.set(key, below.length === 0 ? 0 : Math.max(...below) + 1);
  }
  return levels;
}

/**
 * Weakly connected components of the module graph: modules linked by dependencies in either
 * direction. Each cluster is sorted; clusters are sorted by their first key.
 */
export function dependencyClusters(plan: ModulesOf): string[][] {
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let root = k;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(k, root);
    return root;
  };
  const deps = dependencyMap(plan);
  for (const key of deps.keys()) parent.set(key, key);
  for (const [key, ds] of deps) for (const d of ds) parent.set(find(key), find(d));
  const clusters = new Map<string, string[]>();
  for (const key of deps.keys()) {
    const root = find(key);
    appendTo(clusters, root, key);
  }
  return [...clusters.values()].map((c) => c.sort()).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** The roots that name a module, and every module they depend on, directly or not. Unknown roots are ignored. */
export function reachableFrom(plan: ModulesOf, roots: Iterable<string>): Set<string> {
  const deps = dependencyMap(plan);
  const seen = new Set<string>();
  const stack = [...roots].filter((r) => deps.has(r));
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    stack.push(...deps.get(key)!);
  }
  return seen;
}

/** Modules that depend on `key`, directly or not (the blast radius of changing it). */
export function dependentsOf(plan: ModulesOf, key: string): Set<string> {
  const dependents = new Map<string, string[]>();
  for (const [k, ds] of dependencyMap(plan)) for (const d of ds) appendTo(dependents, d, k);
  const seen = new Set<string>();
  const stack = [...(dependents.get(key) ?? [])];
  while (stack.length > 0) {
    const k = stack.pop()!;
    if (seen.has(k) || k === key) continue;
    seen.add(k);
    stack.push(...(dependents.get(k) ?? []));
  }
  return seen;
}

function stepCounts(plan: Pick<Plan, 'steps'>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of plan.steps) counts.set(s.moduleKey, (counts.get(s.moduleKey) ?? 0) + 1);
  return counts;
}

/**
 * The heaviest dependency chain, from the module nothing it needs precedes to the module that needs
 * it all. A module weighs its number of steps, at least 1 (a module with no steps still has to be
 * built). Ties go to the smallest keys so the answer is deterministic. Empty plan: `[]`.
 */
export function criticalPath(plan: Pick<Plan, 'modules' | 'steps'>): string[] {
  const deps = dependencyMap(plan);
  const counts = stepCounts(plan);
  const weight = new Map<string, number>();
  const via = new Map<string, string | undefined>();
  for (const key of topologicalOrder(plan)) {
    let best: string | undefined;
    for (const d of [...deps.get(key)!].sort()) {
      if (!weight.has(d)) continue; // only on a cycle
      if (best === undefined || weight.get(d)! > weight.get(best)!) best = d;
    }
    weight.set(key, Math.max(1, counts.get(key) ?? 0) + (best === undefined ? 0 : weight.get(best)!));
    via.set(key, best);
  }
  let end: string | undefined;
  for (const key of [...weight.keys()].sort()) if (end === undefined || weight.get(key)! > weight.get(end)!) end = key;
  const path: string[] = [];
  for (let k = end; k !== undefined; k = via.get(k)) path.unshift(k);
  return path;
}

/** Sum of module weights (steps, at least 1 per module) along a chain of module keys. */
export function chainWeight(plan: Pick<Plan, 'steps'>, chain: readonly string[]): number {
  const counts = stepCounts(plan);
  return chain.reduce((sum, key) => sum + Math.max(1, counts.get(key) ?? 0), 0);
}

/**
 * Splits the steps into `lanes` parallel lanes (swarm_partition).
 *
 * Guarantee: a module's steps all go to one lane, in plan order; each lane runs its modules level by
 * level (see {@link moduleLevels}); and a module's dependencies are always on a strictly lower level.
 * So if every lane finishes level L before any lane starts level L + 1 (a barrier per level), no step
 * ever runs before a step of a module it depends on. Within a level, modules go (largest first, then
 * by key) to the lane with the fewest steps on that level, ties to the lane with the fewest steps
 * overall, then the lowest lane index, which balances each level's work.
 *
 * Returns exactly `lanes` arrays of step keys (some may be empty); `lanes` below 1 counts as 1.
 * Steps naming no module are treated as a module of their own on level 0, so that none is lost.
 */
export function partitionSteps(plan: Pick<Plan, 'modules' | 'steps'>, lanes: number): string[][] {
  const laneCount = Math.max(1, Math.floor(Number.isFinite(lanes) ? lanes : 1));
  const levels = moduleLevels(plan);
  const stepsOf = new Map<string, string[]>();
  for (const s of plan.steps) appendTo(stepsOf, s.moduleKey, s.key);
  const byLevel = new Map<number, string[]>();
  for (const moduleKey of new Set([...levels.keys(), ...stepsOf.keys()])) {
    const level = levels.get(moduleKey) ?? 0;
    appendTo(byLevel, level, moduleKey);
  }
  const out: string[][] = Array.from({ length: laneCount }, () => []);
  const total = new Array<number>(laneCount).fill(0);
  for (const level of [...byLevel.keys()].sort((a, b) => a - b)) {
    const size = (k: string) => stepsOf.get(k)?.length ?? 0;
    const modules = byLevel.get(level)!.sort((a, b) => size(b) - size(a) || (a < b ? -1 : 1));
    const here = new Array<number>(laneCount).fill(0);
    for (const moduleKey of modules) {
      let lane = 0;
      for (let i = 1; i < laneCount; i++) {
        if (here[i]! < here[lane]! || (here[i] === here[lane] && total[i]! < total[lane]!)) lane = i;
      }
      here[lane]! += size(moduleKey);
      total[lane]! += size(moduleKey);
      out[lane]!.push(...(stepsOf.get(moduleKey) ?? []));
    }
  }
  return out;
}
