/**
 * Run order of combined plans. Weaving the sources' step orders keeps each source's order, but a step
 * may then run before the steps of a module it depends on that came from another source; these
 * functions find and fix that with as little movement as possible.
 */
import { dependencyMap } from '../plans/algebra';
import type { Plan, PlanStep } from '../plans/plan';

/** `built(m)`: every step of `m` and of every module it depends on, directly or not, is placed. */
function builtTracker(plan: Pick<Plan, 'modules' | 'steps'>) {
  const deps = dependencyMap(plan);
  const left = new Map<string, number>();
  for (const s of plan.steps) left.set(s.moduleKey, (left.get(s.moduleKey) ?? 0) + 1);
  const known = new Set<string>(); // only ever grows: once built, a module stays built
  const built = (m: string, seen = new Set<string>()): boolean => {
    if (known.has(m)) return true;
    if ((left.get(m) ?? 0) > 0 || seen.has(m)) return false;
    seen.add(m);
    if (!(deps.get(m) ?? []).every((d) => built(d, seen))) return false;
    known.add(m);
    return true;
  };
  return {
    ready: (s: PlanStep) => (deps.get(s.moduleKey) ?? []).every((d) => built(d)),
    place: (s: PlanStep) => left.set(s.moduleKey, left.get(s.moduleKey)! - 1),
  };
}

/**
 * The steps in an order where none runs before a step of a module its module depends on: each time
 * the first waiting step whose dependencies are built. An order that already satisfies this is kept.
 */
export function runnableOrder(plan: Pick<Plan, 'modules' | 'steps'>): PlanStep[] {
  const tracker = builtTracker(plan);
  const waiting = [...plan.steps];
  const order: PlanStep[] = [];
  while (waiting.length > 0) {
    let i = waiting.findIndex(tracker.ready);
    if (i < 0) i = 0; // only on a dependency cycle, which a valid plan never has
    const [step] = waiting.splice(i, 1);
    tracker.place(step!);
    order.push(step!);
  }
  return order;
}

/** Index of the first step that runs before a step of a module its module depends on, or -1. */
export function firstStepOutOfOrder(plan: Pick<Plan, 'modules' | 'steps'>): number {
  const tracker = builtTracker(plan);
  for (const [i, s] of plan.steps.entries()) {
    if (!tracker.ready(s)) return i;
    tracker.place(s);
  }
  return -1;
}
