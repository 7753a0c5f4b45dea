/**
 * Seeded variation of a plan (the `mutate` tool). Same plan, seed and rate: same result, on any
 * machine, because the only randomness is a small seeded generator and every loop runs in array order.
 */
import type { Plan, PlanStep } from './plan';
import { clonePlan, cloneStep } from './algebra.core';
import { dependencyMap } from './algebra.graph';

/**
 * A deterministic generator of numbers in [0, 1) (mulberry32), seeded by a 32-bit FNV-1a hash of
 * `String(seed)`, so the number 7 and the string "7" give the same sequence.
 */
export function seededRandom(seed: number | string): () => number {
  let state = 0x811c9dc5;
  for (const ch of String(seed)) {
    state ^= ch.codePointAt(0)!;
    state = Math.imul(state, 0x01000193);
  }
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Title suffixes a mutation may add: each names a plausible different take on the same step. */
const titleSuffixes = ['revised', 'alternative', 'hardened', 'simplified', 'incremental', 'experimental'];

/** Acceptance checks a mutation may add: generic enough to make sense for any step. */
const extraChecks = [
  'Edge cases (empty, maximal and malformed input) are handled and covered by tests',
  'Failures are reported with a clear message and never a stack trace',
  'An automated test fails without this change and passes with it',
  'The behaviour is described in the README',
  'Performance is measured and stays within the agreed budget',
  'Logs and errors contain no secrets or personal data',
];

// Limits of the plan schema (plan.schema.ts): a mutation that would break one is skipped.
const maxKeyLength = 100;
const maxTitleLength = 300;
const maxInstructionsLength = 50_000;

/**
 * A seeded variation of `plan`. Each step is, with probability `rate`, given a title suffix, an extra
 * acceptance check, or a variant copy (key `<key>-variant`, right after it); then each pair of
 * neighbouring steps from modules that do not depend on each other, directly or not, is swapped
 * with probability `rate`. Nothing is removed, modules and JSON sections are untouched, so the
 * result is valid whenever `plan` is. `rate` is clamped to [0, 1]; at 0 the result equals `plan`.
 */
export function mutatePlan(plan: Plan, seed: number | string, rate: number): Plan {
  const p = Number.isFinite(rate) ? Math.min(1, Math.max(0, rate)) : 0;
  const result = clonePlan(plan);
  if (p === 0) return result;
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const taken = new Set(result.steps.map((s) => s.key));

  const steps: PlanStep[] = [];
  for (const step of result.steps) {
    steps.push(step);
    if (random() >= p) continue;
    const variation = Math.floor(random() * 3);
    if (variation === 0 && retitle(step, pick(titleSuffixes))) continue;
    if (variation === 2) {
      const variant = variantOf(step, taken);
      if (variant) {
        steps.push(variant);
        continue;
      }
    }
    addCheck(step, pick(extraChecks)); // also the fallback when the chosen variation does not fit
  }

  const related = relatedModules(plan);
  for (let i = 0; i + 1 < steps.length; i++) {
    const [a, b] = [steps[i]!, steps[i + 1]!];
    if (random() >= p || a.moduleKey === b.moduleKey || related(a.moduleKey, b.moduleKey)) continue;
    [steps[i], steps[i + 1]] = [b, a];
    i++; // a swapped step moves one place at most, so the run order changes locally
  }
  result.steps = steps;
  return result;
}

function retitle(step: PlanStep, suffix: string): boolean {
  const title = `${step.title} (${suffix})`;
  if (title.length > maxTitleLength || step.title.endsWith(`(${suffix})`)) return false;
  step.title = title;
  return true;
}

function addCheck(step: PlanStep, check: string): void {
  if (!step.acceptance.includes(check)) step.acceptance.push(check);
}

function variantOf(step: PlanStep, taken: Set<string>): PlanStep | undefined {
  let key = `${step.key}-variant`;
  for (let n = 2; taken.has(key); n++) key = `${step.key}-variant-${n}`;
  if (key.length > maxKeyLength) return undefined;
  taken.add(key);
  const variant = cloneStep(step);
  variant.key = key;
  variant.title = `${step.title} (variant)`.slice(0, maxTitleLength);
  const note = `${step.instructions}\n\nVariant: reach the same acceptance criteria by a different approach than the step before.`.trimStart();
  if (note.length <= maxInstructionsLength) variant.instructions = note;
  return variant;
}

/** Whether one module depends on the other, directly or not (then their steps keep their order). */
function relatedModules(plan: Plan): (a: string, b: string) => boolean {
  const deps = dependencyMap(plan);
  const reach = new Map<string, Set<string>>();
  const reachOf = (from: string): Set<string> => {
    let seen = reach.get(from);
    if (seen) return seen;
    seen = new Set<string>();
    const stack = [...(deps.get(from) ?? [])];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      stack.push(...(deps.get(k) ?? []));
    }
    reach.set(from, seen);
    return seen;
  };
  return (a, b) => reachOf(a).has(b) || reachOf(b).has(a);
}
