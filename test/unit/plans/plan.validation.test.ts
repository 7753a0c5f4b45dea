import type { Plan } from '../../../src/plans/plan';
import { assertValidPlan, planIssues } from '../../../src/plans/plan.validation';
import { defaultLimits } from '../../../src/platform/config';

const bounds = defaultLimits;

function plan(partial: Partial<Plan> = {}): Plan {
  return {
    modules: [
      { key: 'db', name: 'DB', summary: '', kind: 'data', dependsOn: [] },
      { key: 'api', name: 'API', summary: '', kind: 'backend', dependsOn: ['db'] },
    ],
    steps: [{ key: 'schema', moduleKey: 'db', title: 'Schema', instructions: '', acceptance: [] }],
    configuration: {},
    designSystem: {},
    ...partial,
  };
}

describe('plan rules', () => {
  it('accepts a plan with unique keys, resolvable references and no cycle', () => {
    expect(planIssues(plan(), bounds)).toEqual([]);
  });

  it('names a duplicated module key by its path', () => {
    const p = plan();
    p.modules.push({ ...p.modules[0]! });
    expect(planIssues(p, bounds)).toEqual([{ path: 'modules/2/key', message: 'duplicates module key "db"' }]);
  });

  it('names a dependency on an unknown module and a self-dependency', () => {
    const p = plan();
    p.modules[1]!.dependsOn = ['db', 'cache', 'api'];
    expect(planIssues(p, bounds)).toEqual([
      { path: 'modules/1/depends_on/1', message: 'names no module: "cache"' },
      { path: 'modules/1/depends_on/2', message: 'module "api" cannot depend on itself' },
    ]);
  });

  it('reports a dependency cycle once, naming its modules', () => {
    const p = plan();
    p.modules[0]!.dependsOn = ['api'];
    const issues = planIssues(p, bounds);
    expect(issues).toEqual([{ path: 'modules', message: 'module dependencies form a cycle: api -> db' }]);
  });

  it('names a step whose module does not exist and a duplicated step key', () => {
    const p = plan();
    p.steps.push({ key: 'schema', moduleKey: 'web', title: 'x', instructions: '', acceptance: [] });
    expect(planIssues(p, bounds)).toEqual([
      { path: 'steps/1/key', message: 'duplicates step key "schema"' },
      { path: 'steps/1/module_key', message: 'names no module: "web"' },
    ]);
  });

  it('bounds the number of modules and steps and the size', () => {
    const small = { ...bounds, planMaxModules: 1, planMaxSteps: 0, planMaxBytes: 100 };
    const paths = planIssues(plan(), small).map((i) => i.path);
    expect(paths).toEqual(['modules', 'steps', '']);
  });

  it('throws VALIDATION_FAILED listing every issue under the given root', () => {
    const p = plan();
    p.modules[1]!.dependsOn = ['nope'];
    try {
      assertValidPlan(p, bounds, 'submission');
      throw new Error('did not throw');
    } catch (err) {
      const e = err as { code: string; details: { issues: unknown[] } };
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details.issues).toEqual([{ path: 'submission/modules/1/depends_on/0', message: 'names no module: "nope"' }]);
    }
  });
});
