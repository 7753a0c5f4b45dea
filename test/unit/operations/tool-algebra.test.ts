import fc from 'fast-check';
import { partitionSteps } from '../../../src/plans/algebra';
import type { Plan } from '../../../src/plans/plan';
import { restorePlan } from '../../../src/operations/tools/semantic-rollback.tool';
import { lanesOf } from '../../../src/operations/tools/swarm-partition.tool';
import { pathKeys } from '../../../src/operations/tools/upstream-merge.tool';
import { arbPlan, planProblems } from '../plans/plan-arbitraries';

const mod = (key: string, dependsOn: string[] = []) => ({ key, name: key, summary: '', kind: 'service', dependsOn });
const step = (key: string, moduleKey: string, acceptance = ['ok']) => ({ key, moduleKey, title: key, instructions: '', acceptance });

describe('lanesOf (swarm_partition)', () => {
  it('is exactly partitionSteps when the agent moves nothing', () => {
    fc.assert(
      fc.property(arbPlan, fc.integer({ min: 1, max: 5 }), (plan, lanes) => {
        expect(lanesOf(plan, lanes).map((l) => l.steps)).toEqual(partitionSteps(plan, lanes));
        return true;
      }),
      { numRuns: 150 },
    );
  });
});

describe('restorePlan (semantic_rollback)', () => {
  const v1: Plan = {
    modules: [mod('db'), mod('api', ['db'])],
    steps: [step('schema', 'db', ['applies']), step('routes', 'api')],
    configuration: { port: 1 },
    designSystem: {},
  };
  const now: Plan = {
    modules: [mod('db'), mod('api', ['db']), mod('cache')],
    steps: [step('schema', 'db', ['applies', 'fast']), step('warm', 'cache'), step('routes', 'api'), step('seed', 'db')],
    configuration: { port: 2 },
    designSystem: {},
  };

  it('puts a module back with its steps where the old version ran them, keeping the rest', () => {
    const { plan, repairs } = restorePlan(now, v1, [], ['db']);
    expect(plan.steps.map((s) => [s.key, s.acceptance])).toEqual([
      ['schema', ['applies']],
      ['warm', ['ok']],
      ['routes', ['ok']],
    ]);
    expect(plan.modules.map((m) => m.key)).toEqual(['db', 'api', 'cache']);
    expect(plan.configuration).toEqual({ port: 2 });
    expect(repairs).toEqual([]);
  });

  it('removes a module the old version did not have, and reports steps a restored section orphans', () => {
    expect(restorePlan(now, v1, [], ['cache']).plan.steps.map((s) => s.key)).toEqual(['schema', 'routes', 'seed']);
    const { plan, repairs } = restorePlan({ ...now, steps: [...now.steps] }, { ...v1, modules: [mod('db')] }, ['modules'], []);
    expect(plan.modules.map((m) => m.key)).toEqual(['db']);
    expect(repairs).toEqual([
      { kind: 'step', key: 'warm', reason: 'missing-module' },
      { kind: 'step', key: 'routes', reason: 'missing-module' },
    ]);
  });

  it('always returns a valid plan', () => {
    fc.assert(
      fc.property(
        arbPlan,
        arbPlan,
        fc.subarray(['modules', 'steps', 'configuration', 'designSystem'] as const),
        fc.subarray(['api', 'db', 'web', 'constructor']),
        (current, old, sections, modules) => {
          expect(planProblems(restorePlan(current, old, [...sections], modules).plan)).toEqual([]);
          return true;
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('pathKeys (upstream_merge)', () => {
  it('reads back the paths the merge reports, plain and quoted', () => {
    expect(pathKeys('database')).toEqual(['database']);
    expect(pathKeys('theme.colors.primary')).toEqual(['theme', 'colors', 'primary']);
    expect(pathKeys('theme["font.size"].px')).toEqual(['theme', 'font.size', 'px']);
    expect(pathKeys('["a b"]')).toEqual(['a b']);
  });
});
