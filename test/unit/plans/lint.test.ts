import fc from 'fast-check';
import { lintPlan } from '../../../src/plans/lint';
import { planIssues } from '../../../src/plans/plan.validation';
import { defaultLimits } from '../../../src/platform/config';
import type { Plan } from '../../../src/plans/plan';

const keys = ['api', 'db', 'web', 'constructor'];
/** Any plan, valid or not: keys may repeat, dependencies and module keys may name nothing or loop. */
const arbAnyPlan: fc.Arbitrary<Plan> = fc.record({
  modules: fc.array(
    fc.record({
      key: fc.constantFrom(...keys),
      name: fc.constant('M'),
      summary: fc.constant(''),
      kind: fc.constantFrom('data', 'backend'),
      dependsOn: fc.uniqueArray(fc.constantFrom(...keys, 'ghost'), { maxLength: 3 }),
    }),
    { maxLength: 5 },
  ),
  steps: fc.array(
    fc.record({
      key: fc.constantFrom('s1', 's2', 's3', 's4'),
      moduleKey: fc.constantFrom(...keys, 'ghost'),
      title: fc.constant('T'),
      instructions: fc.constantFrom('', 'do'),
      acceptance: fc.subarray(['ok', 'ok', 'fine']),
    }),
    { maxLength: 6 },
  ),
  configuration: fc.constant({}),
  designSystem: fc.constant({}),
});

const mod = (key: string, dependsOn: string[] = []) => ({ key, name: key, summary: '', kind: 'service', dependsOn });
const step = (key: string, moduleKey: string, acceptance = ['ok']) => ({ key, moduleKey, title: key, instructions: `do ${key}`, acceptance });

describe('lintPlan', () => {
  it('reports dangling keys, orphan steps, duplicates, self-dependencies and cycles as errors first', () => {
    const plan: Plan = {
      modules: [mod('a', ['b']), mod('b', ['a']), mod('c', ['ghost', 'c']), mod('a')],
      steps: [step('s1', 'a'), step('s1', 'b'), step('s2', 'nowhere')],
      configuration: {},
      designSystem: {},
    };
    expect(lintPlan(plan).map((f) => [f.severity, f.code, f.path, f.key])).toEqual([
      ['error', 'duplicate-module-key', 'modules/3/key', 'a'],
      ['error', 'dangling-dependency', 'modules/2/depends_on/0', 'c'],
      ['error', 'self-dependency', 'modules/2/depends_on/1', 'c'],
      ['error', 'cycle', 'modules', 'a'],
      ['error', 'duplicate-step-key', 'steps/1/key', 's1'],
      ['error', 'orphan-step', 'steps/2/module_key', 's2'],
      ['warning', 'module-without-steps', 'modules/2', 'c'],
      ['warning', 'step-before-dependency', 'steps/0', 's1'],
    ]);
    expect(lintPlan(plan).find((f) => f.code === 'cycle')!.message).toBe('module dependencies form a cycle: a -> b');
  });

  it('finds an error exactly when write-time validation would reject the plan', () => {
    fc.assert(
      fc.property(arbAnyPlan, (plan) => {
        const hasError = lintPlan(plan).some((f) => f.severity === 'error');
        return hasError === planIssues(plan, defaultLimits).length > 0;
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic and leaves its input alone', () => {
    fc.assert(
      fc.property(arbAnyPlan, (plan) => {
        const copy = JSON.parse(JSON.stringify(plan));
        expect(lintPlan(plan)).toEqual(lintPlan(copy));
        expect(plan).toEqual(copy);
        return true;
      }),
      { numRuns: 100 },
    );
  });
});
