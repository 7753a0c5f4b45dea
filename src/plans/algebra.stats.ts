/**
 * Observable traits of a plan (the `phenotyping` report, blueprint cards): sizes, shape of the
 * dependency graph, critical path and stack.
 */
import type { Plan } from './plan';
import { chainWeight, criticalPath, dependencyClusters, dependencyMap, moduleLevels } from './algebra.graph';

export interface PlanStats {
  modules: number;
  steps: number;
  /** Dependency edges that name a module. */
  dependencies: number;
  /** Module count per kind, kinds sorted. */
  modulesByKind: Record<string, number>;
  /** Step count per module key, in module order (0 for a module without steps). */
  stepsByModule: Record<string, number>;
  stepsPerModule: { min: number; max: number; mean: number };
  acceptanceChecks: number;
  stepsWithoutAcceptance: number;
  modulesWithoutSteps: number;
  /** Levels of the module graph: modules on the longest dependency chain (0 for no modules). */
  depth: number;
  /** Most modules on one level: how many could be built at once (see `moduleLevels`). */
  width: number;
  /** Modules nothing depends on: what the plan delivers (sorted). */
  entryPoints: string[];
  /** Modules that depend on nothing: where building starts (sorted). */
  foundations: string[];
  /** Number of independent parts (weakly connected components). */
  clusters: number;
  criticalPath: string[];
  /** Steps along the critical path, counting a module without steps as 1. */
  criticalPathWeight: number;
  /** `configuration.language` and `configuration.framework` when they are strings. */
  stack: { language?: string; framework?: string };
}

/** Counts and shape of a plan; deterministic, and total even on an invalid plan. */
export function planStats(plan: Plan): PlanStats {
  const deps = dependencyMap(plan);
  const keys = [...deps.keys()];
  const kindOf = new Map<string, string>();
  for (const m of plan.modules) if (!kindOf.has(m.key)) kindOf.set(m.key, m.kind);
  // Maps, not object literals, while counting: a key such as `constructor` must not hit a prototype.
  const perModule = new Map(keys.map((k) => [k, 0]));
  for (const s of plan.steps) if (perModule.has(s.moduleKey)) perModule.set(s.moduleKey, perModule.get(s.moduleKey)! + 1);
  const counts = [...perModule.values()];
  const perKind = new Map<string, number>();
  for (const kind of keys.map((k) => kindOf.get(k)!).sort()) perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
  const levels = [...moduleLevels(plan).values()];
  const perLevel = new Map<number, number>();
  for (const l of levels) perLevel.set(l, (perLevel.get(l) ?? 0) + 1);
  const dependedOn = new Set([...deps.values()].flat());
  const path = criticalPath(plan);
  const { language, framework } = plan.configuration;
  return {
    modules: keys.length,
    steps: plan.steps.length,
    dependencies: [...deps.values()].reduce((n, ds) => n + ds.length, 0),
    modulesByKind: Object.fromEntries(perKind),
    stepsByModule: Object.fromEntries(perModule),
    stepsPerModule: {
      min: counts.length ? Math.min(...counts) : 0,
      max: counts.length ? Math.max(...counts) : 0,
      mean: counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0,
    },
    acceptanceChecks: plan.steps.reduce((n, s) => n + s.acceptance.length, 0),
    stepsWithoutAcceptance: plan.steps.filter((s) => s.acceptance.length === 0).length,
    modulesWithoutSteps: counts.filter((c) => c === 0).length,
    depth: levels.length ? Math.max(...levels) + 1 : 0,
    width: perLevel.size ? Math.max(...perLevel.values()) : 0,
    entryPoints: keys.filter((k) => !dependedOn.has(k)).sort(),
    foundations: keys.filter((k) => deps.get(k)!.length === 0).sort(),
    clusters: dependencyClusters(plan).length,
    criticalPath: path,
    criticalPathWeight: chainWeight(plan, path),
    stack: {
      ...(typeof language === 'string' ? { language } : {}),
      ...(typeof framework === 'string' ? { framework } : {}),
    },
  };
}
