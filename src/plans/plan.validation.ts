import { Graph, alg } from '@dagrejs/graphlib';
import type { ValidationIssue } from '../platform/json-schema';
import { invalidAll } from '../platform/errors';
import type { Plan } from './plan';

export interface PlanBounds {
  planMaxModules: number;
  planMaxSteps: number;
  planMaxBytes: number;
}

/** The module dependency graph: an edge from a module to each module it depends on. */
export function moduleGraph(plan: Pick<Plan, 'modules'>): Graph {
  const graph = new Graph({ directed: true });
  for (const m of plan.modules) graph.setNode(m.key);
  for (const m of plan.modules) for (const dep of m.dependsOn) if (graph.hasNode(dep)) graph.setEdge(m.key, dep);
  return graph;
}

/**
 * The rules of a plan beyond its JSON shape: unique keys, references that resolve, an acyclic module
 * graph and bounded size. Returns every problem, with paths in the REST wire form.
 */
export function planIssues(plan: Plan, bounds: PlanBounds): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (plan.modules.length > bounds.planMaxModules)
    issues.push({ path: 'modules', message: `has ${plan.modules.length} modules; at most ${bounds.planMaxModules} are allowed` });
  if (plan.steps.length > bounds.planMaxSteps)
    issues.push({ path: 'steps', message: `has ${plan.steps.length} steps; at most ${bounds.planMaxSteps} are allowed` });
  const bytes = Buffer.byteLength(JSON.stringify(plan), 'utf8');
  if (bytes > bounds.planMaxBytes) issues.push({ path: '', message: `plan is ${bytes} bytes; at most ${bounds.planMaxBytes} are allowed` });

  const moduleKeys = new Set<string>();
  plan.modules.forEach((m, i) => {
    if (moduleKeys.has(m.key)) issues.push({ path: `modules/${i}/key`, message: `duplicates module key "${m.key}"` });
    moduleKeys.add(m.key);
  });
  plan.modules.forEach((m, i) =>
    m.dependsOn.forEach((dep, j) => {
      if (dep === m.key) issues.push({ path: `modules/${i}/depends_on/${j}`, message: `module "${m.key}" cannot depend on itself` });
      else if (!moduleKeys.has(dep)) issues.push({ path: `modules/${i}/depends_on/${j}`, message: `names no module: "${dep}"` });
    }),
  );
  const stepKeys = new Set<string>();
  plan.steps.forEach((s, i) => {
    if (stepKeys.has(s.key)) issues.push({ path: `steps/${i}/key`, message: `duplicates step key "${s.key}"` });
    stepKeys.add(s.key);
    if (!moduleKeys.has(s.moduleKey)) issues.push({ path: `steps/${i}/module_key`, message: `names no module: "${s.moduleKey}"` });
  });
  for (const cycle of alg.findCycles(moduleGraph(plan))) {
    if (cycle.length < 2) continue; // self-dependencies are reported above
    const ordered = [...cycle].sort();
    issues.push({ path: 'modules', message: `module dependencies form a cycle: ${ordered.join(' -> ')}` });
  }
  return issues;
}

/** Throws 400 VALIDATION_FAILED when the plan breaks a rule; `root` prefixes the paths. */
export function assertValidPlan(plan: Plan, bounds: PlanBounds, root = 'plan'): void {
  const issues = planIssues(plan, bounds).map((i) => ({ ...i, path: i.path ? `${root}/${i.path}` : root }));
  if (issues.length > 0) throw invalidAll(issues);
}
