import type { Plan } from '../../../src/plans/plan';
import { composition, moduleDependencies, moduleDetail, moduleViews } from '../../../src/architectures/zoom';

const plan: Plan = {
  modules: [
    { key: 'web', name: 'Web', summary: '', kind: 'frontend', dependsOn: ['api'] },
    { key: 'api', name: 'API', summary: '', kind: 'backend', dependsOn: ['db', 'auth'] },
    { key: 'auth', name: 'Auth', summary: '', kind: 'backend', dependsOn: ['db'] },
    { key: 'db', name: 'DB', summary: '', kind: 'data', dependsOn: [] },
    { key: 'admin', name: 'Admin', summary: '', kind: 'frontend', dependsOn: ['api'] },
  ],
  steps: [
    { key: 'schema', moduleKey: 'db', title: 'Schema', instructions: '', acceptance: [] },
    { key: 'login', moduleKey: 'auth', title: 'Login', instructions: '', acceptance: ['a'] },
    { key: 'routes', moduleKey: 'api', title: 'Routes', instructions: '', acceptance: [] },
    { key: 'pages', moduleKey: 'web', title: 'Pages', instructions: '', acceptance: [] },
    { key: 'tests', moduleKey: 'api', title: 'Tests', instructions: '', acceptance: [] },
  ],
  configuration: {},
  designSystem: {},
};

describe('zoom levels', () => {
  it('ecosystem: counts modules by kind, most common first, ties by kind', () => {
    expect(composition(plan)).toEqual([
      { kind: 'backend', count: 2 },
      { kind: 'frontend', count: 2 },
      { kind: 'data', count: 1 },
    ]);
    expect(composition({ modules: [] })).toEqual([]);
  });

  it('architecture: modules in plan order with step counts and dependency levels', () => {
    const views = moduleViews(plan);
    expect(views.map((m) => [m.key, m.stepCount, m.level])).toEqual([
      ['web', 1, 3],
      ['api', 2, 2],
      ['auth', 1, 1],
      ['db', 1, 0],
      ['admin', 0, 3],
    ]);
  });

  it('architecture: one dependency edge per dependsOn entry, dependent -> dependency', () => {
    expect(moduleDependencies(plan)).toEqual([
      { source: 'web', target: 'api' },
      { source: 'api', target: 'db' },
      { source: 'api', target: 'auth' },
      { source: 'auth', target: 'db' },
      { source: 'admin', target: 'api' },
    ]);
  });

  it('module detail: the module lane, then its dependencies, then its dependents, on one run-order axis', () => {
    const detail = moduleDetail(plan, 'api')!;
    expect(detail.module.key).toBe('api');
    expect(detail.steps.map((s) => [s.key, s.order])).toEqual([
      ['routes', 3],
      ['tests', 5],
    ]);
    expect(detail.swimlanes.map((l) => [l.moduleKey, l.relation, l.steps.map((s) => s.order)])).toEqual([
      ['api', 'module', [3, 5]],
      ['db', 'dependency', [1]],
      ['auth', 'dependency', [2]],
      ['web', 'dependent', [4]],
      ['admin', 'dependent', []],
    ]);
  });

  it('module detail: null for a key the plan does not have', () => {
    expect(moduleDetail(plan, 'nope')).toBeNull();
  });

  it('never shares objects with the plan', () => {
    const detail = moduleDetail(plan, 'auth')!;
    detail.module.dependsOn.push('x');
    detail.steps[0]!.acceptance.push('y');
    expect(plan.modules[2]!.dependsOn).toEqual(['db']);
    expect(plan.steps[1]!.acceptance).toEqual(['a']);
  });
});
