/**
 * Plan problems for the `lint` report. Pure and total: it reads any plan, valid or not, so that it
 * also explains what the write-time validation would reject. Paths use the REST wire form.
 */
import { alg } from '@dagrejs/graphlib';
import type { Plan } from './plan';
import { moduleGraph } from './plan.validation';

export type LintSeverity = 'error' | 'warning' | 'info';

export type LintCode =
  | 'duplicate-module-key'
  | 'duplicate-step-key'
  | 'self-dependency'
  | 'dangling-dependency'
  | 'orphan-step'
  | 'cycle'
  | 'empty-acceptance'
  | 'module-without-steps'
  | 'step-before-dependency'
  | 'empty-instructions'
  | 'duplicate-acceptance';

export interface LintFinding {
  severity: LintSeverity;
  code: LintCode;
  /** Where, e.g. `steps/3/acceptance`. */
  path: string;
  /** The module or step key the finding is about. */
  key: string;
  message: string;
}

const severityRank: Record<LintSeverity, number> = { error: 0, warning: 1, info: 2 };

/**
 * Every problem of a plan: errors (dangling keys, orphan steps, duplicate keys, cycles), warnings
 * (steps without acceptance checks or instructions, modules without steps, steps that run before a step
 * of a module they depend on) and notes (repeated acceptance checks). Sorted by severity, then in the
 * order the checks run (modules first, in plan order), so equal plans give equal reports.
 */
export function lintPlan(plan: Plan): LintFinding[] {
  const out: LintFinding[] = [];
  const moduleKeys = new Set<string>();
  plan.modules.forEach((m, i) => {
    if (moduleKeys.has(m.key))
      out.push({
        severity: 'error',
        code: 'duplicate-module-key',
        path: `modules/${i}/key`,
        key: m.key,
        message: `module key "${m.key}" is used more than once`,
      });
    moduleKeys.add(m.key);
  });
  plan.modules.forEach((m, i) =>
    m.dependsOn.forEach((d, j) => {
      const path = `modules/${i}/depends_on/${j}`;
      if (d === m.key) out.push({ severity: 'error', code: 'self-dependency', path, key: m.key, message: `module "${m.key}" depends on itself` });
      else if (!moduleKeys.has(d))
        out.push({ severity: 'error', code: 'dangling-dependency', path, key: m.key, message: `module "${m.key}" depends on "${d}", which names no module` });
    }),
  );
  const cycles = alg
    .findCycles(moduleGraph(plan))
    .filter((c) => c.length > 1)
    .map((c) => [...c].sort())
    .sort((a, b) => (a.join() < b.join() ? -1 : 1));
  for (const cycle of cycles)
    out.push({ severity: 'error', code: 'cycle', path: 'modules', key: cycle[0]!, message: `module dependencies form a cycle: ${cycle.join(' -> ')}` });

  const stepKeys = new Set<string>();
  plan.steps.forEach((s, i) => {
    if (stepKeys.has(s.key))
      out.push({ severity: 'error', code: 'duplicate-step-key', path: `steps/${i}/key`, key: s.key, message: `step key "${s.key}" is used more than once` });
    stepKeys.add(s.key);
    if (!moduleKeys.has(s.moduleKey))
      out.push({
        severity: 'error',
        code: 'orphan-step',
        path: `steps/${i}/module_key`,
        key: s.key,
        message: `step "${s.key}" belongs to "${s.moduleKey}", which names no module`,
      });
  });

  const withSteps = new Set(plan.steps.map((s) => s.moduleKey));
  plan.modules.forEach((m, i) => {
    if (!withSteps.has(m.key))
      out.push({
        severity: 'warning',
        code: 'module-without-steps',
        path: `modules/${i}`,
        key: m.key,
        message: `module "${m.key}" has no steps, so nothing builds it`,
      });
  });
  const depsOf = new Map<string, string[]>();
  for (const m of plan.modules) if (!depsOf.has(m.key)) depsOf.set(m.key, m.dependsOn);
  const lastStepOf = new Map<string, number>();
  plan.steps.forEach((s, i) => lastStepOf.set(s.moduleKey, i));
  plan.steps.forEach((s, i) => {
    if (s.acceptance.length === 0)
      out.push({
        severity: 'warning',
        code: 'empty-acceptance',
        path: `steps/${i}/acceptance`,
        key: s.key,
        message: `step "${s.key}" has no acceptance checks, so nobody can tell when it is done`,
      });
    if (s.instructions.trim() === '')
      out.push({
        severity: 'warning',
        code: 'empty-instructions',
        path: `steps/${i}/instructions`,
        key: s.key,
        message: `step "${s.key}" has no instructions`,
      });
    const late = (depsOf.get(s.moduleKey) ?? []).filter((d) => d !== s.moduleKey && (lastStepOf.get(d) ?? -1) > i);
    if (late.length > 0) {
      const d = [...late].sort()[0]!;
      const blocker = plan.steps[lastStepOf.get(d)!]!;
      out.push({
        severity: 'warning',
        code: 'step-before-dependency',
        path: `steps/${i}`,
        key: s.key,
        message: `step "${s.key}" of module "${s.moduleKey}" runs before step "${blocker.key}" of module "${d}", which "${s.moduleKey}" depends on`,
      });
    }
    const seen = new Set<string>();
    s.acceptance.forEach((a, j) => {
      if (seen.has(a))
        out.push({
          severity: 'info',
          code: 'duplicate-acceptance',
          path: `steps/${i}/acceptance/${j}`,
          key: s.key,
          message: `step "${s.key}" repeats the acceptance check ${JSON.stringify(a)}`,
        });
      seen.add(a);
    });
  });
  // A stable sort keeps each severity's findings in check order.
  return out.sort((a, b) => severityRank[a.severity] - severityRank[b.severity]);
}
