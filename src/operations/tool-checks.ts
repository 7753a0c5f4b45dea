/** Checks NEW-output tools run on a submission before they build a plan from it. */
import type { Plan } from '../plans/plan';
import { planIssues, type PlanBounds } from '../plans/plan.validation';
import { validationFailed } from '../platform/errors';

const maxKeyLength = 100;

/**
 * A module dependency graph that grows one edge at a time and says which edge would close a cycle,
 * so a rejection can name the exact submission item that caused it.
 */
export class DependencyGraph {
  private readonly deps = new Map<string, Set<string>>();

  constructor(modules: Plan['modules'] = []) {
    for (const m of modules) this.deps.set(m.key, new Set(m.dependsOn));
  }

  /** The path `to -> ... -> from` that `from -> to` would close into a cycle, or null when the edge is safe. */
  cycleThrough(from: string, to: string): string[] | null {
    if (from === to) return [from];
    const previous = new Map<string, string>([[to, to]]);
    const stack = [to];
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (key === from) {
        const path = [from];
        for (let k = from; k !== to; k = previous.get(k)!) path.unshift(previous.get(k)!);
        return path;
      }
      for (const d of this.deps.get(key) ?? []) {
        if (!previous.has(d)) {
          previous.set(d, key);
          stack.push(d);
        }
      }
    }
    return null;
  }

  add(from: string, to: string): void {
    let set = this.deps.get(from);
    if (!set) this.deps.set(from, (set = new Set()));
    set.add(to);
  }
}

/** `base`, or `base-2`, `base-3`, ... : the first not in `taken` (which it joins), within the key length limit. */
export function freshKey(base: string, taken: Set<string>): string {
  let key = base;
  for (let n = 2; taken.has(key); n++) {
    const suffix = `-${n}`;
    key = `${base.slice(0, maxKeyLength - suffix.length).replace(/-+$/, '')}${suffix}`;
  }
  taken.add(key);
  return key;
}

/** Indexes of items whose `key` repeats an earlier one. */
export function repeatedAt<T>(items: readonly T[], keyOf: (item: T) => string): number[] {
  const seen = new Set<string>();
  const repeats: number[] = [];
  items.forEach((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) repeats.push(i);
    seen.add(key);
  });
  return repeats;
}

/**
 * The plan a submission leads to must keep every plan rule (sizes above all, which no single submission
 * item breaks); the problem is named under `submission` with the result's own path in the message.
 */
export function assertResultPlan(plan: Plan, bounds: PlanBounds): void {
  const issues = planIssues(plan, bounds).map((i) => ({
    path: 'submission',
    message: `the resulting plan breaks a rule: ${i.path ? `${i.path} ` : ''}${i.message}`,
  }));
  if (issues.length > 0) throw validationFailed(`submission ${issues[0]!.message}`, { issues });
}
