/**
 * The viewer's three zoom levels as pure functions of a blueprint's plan:
 * 1. ecosystem: a node's module composition (how many modules of each kind);
 * 2. architecture: a node's modules and their dependency edges;
 * 3. module detail: one module's steps in swimlanes beside the modules it touches.
 */
import { dependencyMap, moduleLevels } from '../plans/algebra';
import type { Plan, PlanModule, PlanStep } from '../plans/plan';

export interface KindCount {
  kind: string;
  count: number;
}

/** Modules per kind, most common first (ties by kind), for the composition bars of the ecosystem view. */
export function composition(plan: Pick<Plan, 'modules'>): KindCount[] {
  const counts = new Map<string, number>();
  for (const m of plan.modules) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
}

export interface ModuleView extends PlanModule {
  /** Steps that build this module. */
  stepCount: number;
  /** 0 without dependencies, else one more than the deepest dependency: a layer for drawing. */
  level: number;
}

/** Every module with its step count and dependency level, in plan order. */
export function moduleViews(plan: Plan): ModuleView[] {
  const levels = moduleLevels(plan);
  const steps = new Map<string, number>();
  for (const s of plan.steps) steps.set(s.moduleKey, (steps.get(s.moduleKey) ?? 0) + 1);
  return plan.modules.map((m) => ({ ...m, dependsOn: [...m.dependsOn], stepCount: steps.get(m.key) ?? 0, level: levels.get(m.key) ?? 0 }));
}

export interface ModuleDependency {
  /** The module that depends. */
  source: string;
  /** The module it depends on. */
  target: string;
}

/** The dependency edges between modules, in plan order. */
export function moduleDependencies(plan: Pick<Plan, 'modules'>): ModuleDependency[] {
  const out: ModuleDependency[] = [];
  for (const [source, targets] of dependencyMap(plan)) for (const target of targets) out.push({ source, target });
  return out;
}

export type SwimlaneRelation = 'module' | 'dependency' | 'dependent';

export interface SwimlaneStep extends PlanStep {
  /** The step's place in the blueprint's run order (1-based): steps of all lanes share one time axis. */
  order: number;
}

export interface Swimlane {
  moduleKey: string;
  name: string;
  kind: string;
  relation: SwimlaneRelation;
  steps: SwimlaneStep[];
}

export interface ModuleDetail {
  module: ModuleView;
  /** The module's own steps, in run order. */
  steps: SwimlaneStep[];
  /**
   * The module's lane first, then one lane per module it depends on directly, then one per module that
   * depends on it directly; each lane holds that module's steps with their place in the run order.
   */
  swimlanes: Swimlane[];
}

/** The module-detail zoom level of module `key`, or null when the plan has no such module. */
export function moduleDetail(plan: Plan, key: string): ModuleDetail | null {
  const views = moduleViews(plan);
  const module = views.find((m) => m.key === key);
  if (!module) return null;
  const byModule = new Map<string, SwimlaneStep[]>();
  plan.steps.forEach((s, i) => {
    const list = byModule.get(s.moduleKey) ?? [];
    list.push({ ...s, acceptance: [...s.acceptance], order: i + 1 });
    byModule.set(s.moduleKey, list);
  });
  const deps = dependencyMap(plan);
  const lane = (m: ModuleView, relation: SwimlaneRelation): Swimlane => ({
    moduleKey: m.key,
    name: m.name,
    kind: m.kind,
    relation,
    steps: byModule.get(m.key) ?? [],
  });
  const byKey = new Map(views.map((m) => [m.key, m]));
  const dependencies = (deps.get(key) ?? []).map((k) => byKey.get(k)!);
  const dependents = views.filter((m) => m.key !== key && (deps.get(m.key) ?? []).includes(key));
  return {
    module,
    steps: byModule.get(key) ?? [],
    swimlanes: [lane(module, 'module'), ...dependencies.map((m) => lane(m, 'dependency')), ...dependents.map((m) => lane(m, 'dependent'))],
  };
}
