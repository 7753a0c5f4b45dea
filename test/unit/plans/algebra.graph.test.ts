import fc from 'fast-check';
import type { Plan } from '../../../src/plans/plan';
import {
  chainWeight,
  criticalPath,
  dependencyClusters,
  dependentsOf,
  moduleLevels,
  partitionSteps,
  reachableFrom,
  topologicalOrder,
} from '../../../src/plans/algebra';
import { arbPlan, moduleKeys, shopPlan, stepKeys, thaw } from './plan-arbitraries';

const runs = { numRuns: 150 };

const depsOf = (plan: Plan, key: string) => plan.modules.find((m) => m.key === key)!.dependsOn;

/** Every dependency chain of a small acyclic plan, by brute force: the oracle for criticalPath. */
function allChains(plan: Plan): string[][] {
  const chainsEndingAt = (key: string): string[][] => {
    const deps = depsOf(plan, key);
    if (deps.length === 0) return [[key]];
    return [[key], ...deps.flatMap((d) => chainsEndingAt(d).map((c) => [...c, key]))];
  };
  return moduleKeys(plan).flatMap(chainsEndingAt);
}

/** A plan with some modules and steps, the same modules shuffled: graph functions must not care. */
const arbPlanAndShuffle = arbPlan.chain((plan) =>
  fc.tuple(
    fc.constant(plan),
    fc.shuffledSubarray(plan.modules, { minLength: plan.modules.length, maxLength: plan.modules.length }).map((modules) => ({ ...plan, modules })),
  ),
);

describe('topologicalOrder', () => {
  it('puts dependencies first and breaks ties by key', () => {
    expect(topologicalOrder(shopPlan())).toEqual(['db', 'api', 'auth', 'docs', 'web']);
  });

  it('is a permutation of the modules that respects every dependency, whatever the array order', () => {
    fc.assert(
      fc.property(arbPlanAndShuffle, ([plan, shuffled]) => {
        const order = topologicalOrder(plan);
        expect([...order].sort()).toEqual(moduleKeys(plan).sort());
        for (const m of plan.modules) for (const d of m.dependsOn) expect(order.indexOf(d)).toBeLessThan(order.indexOf(m.key));
        expect(topologicalOrder(shuffled)).toEqual(order);
      }),
      runs,
    );
  });

  it('still lists every module of a cyclic plan, the cycle last', () => {
    const plan = thaw(shopPlan());
    plan.modules.find((m) => m.key === 'db')!.dependsOn = ['web'];
    expect(topologicalOrder(plan)).toEqual(['docs', 'api', 'auth', 'db', 'web']);
  });
});

describe('moduleLevels', () => {
  it('puts each module one level above its deepest dependency', () => {
    expect(Object.fromEntries(moduleLevels(shopPlan()))).toEqual({ db: 0, docs: 0, api: 1, auth: 1, web: 2 });
    fc.assert(
      fc.property(arbPlan, (plan) => {
        const levels = moduleLevels(plan);
        for (const m of plan.modules) {
          const below = m.dependsOn.map((d) => levels.get(d)!);
          expect(levels.get(m.key)).toBe(below.length ? Math.max(...below) + 1 : 0);
        }
      }),
      runs,
    );
  });
});

describe('dependencyClusters', () => {
  it('groups modules linked by dependencies in either direction', () => {
    expect(dependencyClusters(shopPlan())).toEqual([['api', 'auth', 'db', 'web'], ['docs']]);
  });

  it('partitions the modules into sorted, connected clusters with no edge between them', () => {
    fc.assert(
      fc.property(arbPlanAndShuffle, ([plan, shuffled]) => {
        const clusters = dependencyClusters(plan);
        expect(clusters.flat().sort()).toEqual(moduleKeys(plan).sort());
        expect(clusters.map((c) => c[0])).toEqual(clusters.map((c) => c[0]).sort());
        const clusterOf = new Map(clusters.flatMap((c, i) => c.map((k) => [k, i] as const)));
        for (const m of plan.modules) for (const d of m.dependsOn) expect(clusterOf.get(d)).toBe(clusterOf.get(m.key));
        for (const cluster of clusters) {
          expect(cluster).toEqual([...cluster].sort());
          // Connected: a walk over edges in both directions from the first module reaches all.
          const seen = new Set([cluster[0]!]);
          for (let grew = true; grew;) {
            grew = false;
            for (const m of plan.modules) {
              for (const d of m.dependsOn) {
                if (seen.has(m.key) !== seen.has(d)) {
                  seen.add(m.key).add(d);
                  grew = true;
                }
              }
            }
          }
          expect([...seen].sort()).toEqual(cluster);
        }
        expect(dependencyClusters(shuffled)).toEqual(clusters);
      }),
      runs,
    );
  });
});

describe('reachableFrom and dependentsOf', () => {
  it('follows dependencies down, and dependents up', () => {
    expect([...reachableFrom(shopPlan(), ['web'])].sort()).toEqual(['api', 'auth', 'db', 'web']);
    expect([...reachableFrom(shopPlan(), ['nowhere'])]).toEqual([]);
    expect([...dependentsOf(shopPlan(), 'db')].sort()).toEqual(['api', 'auth', 'web']);
    expect([...dependentsOf(shopPlan(), 'web')]).toEqual([]);
  });

  it('reaches a set closed under dependencies, and dependents are the inverse relation', () => {
    fc.assert(
      fc.property(
        arbPlan.chain((p) => fc.tuple(fc.constant(p), fc.subarray(moduleKeys(p)))),
        ([plan, roots]) => {
          const reached = reachableFrom(plan, roots);
          for (const r of roots) expect(reached.has(r)).toBe(true);
          for (const k of reached) for (const d of depsOf(plan, k)) expect(reached.has(d)).toBe(true);
          for (const a of moduleKeys(plan)) {
            for (const b of moduleKeys(plan)) {
              if (a !== b) expect(dependentsOf(plan, b).has(a)).toBe(reachableFrom(plan, [a]).has(b));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('criticalPath', () => {
  it('is the heaviest chain, ties to the smallest keys', () => {
    // db (2 steps) -> api (1) -> web (2) and db -> auth (1) -> web weigh 5 each: api < auth.
    expect(criticalPath(shopPlan())).toEqual(['db', 'api', 'web']);
    const heavierAuth = thaw(shopPlan());
    heavierAuth.steps.push({ key: 'auth-logout', moduleKey: 'auth', title: 'Log out', instructions: '', acceptance: [] });
    expect(criticalPath(heavierAuth)).toEqual(['db', 'auth', 'web']);
    expect(criticalPath({ modules: [], steps: [] })).toEqual([]);
  });

  it('is a chain of dependencies at least as heavy as any other, whatever the array order', () => {
    fc.assert(
      fc.property(arbPlanAndShuffle, ([plan, shuffled]) => {
        const path = criticalPath(plan);
        if (plan.modules.length === 0) return expect(path).toEqual([]);
        for (let i = 1; i < path.length; i++) expect(depsOf(plan, path[i]!)).toContain(path[i - 1]);
        expect(depsOf(plan, path[0]!)).toEqual([]);
        const best = Math.max(...allChains(plan).map((c) => chainWeight(plan, c)));
        expect(chainWeight(plan, path)).toBe(best);
        expect(criticalPath(shuffled)).toEqual(path);
      }),
      runs,
    );
  });
});

describe('partitionSteps', () => {
  it('balances each level across lanes, whole modules at a time', () => {
    expect(partitionSteps(shopPlan(), 2)).toEqual([
      ['db-schema', 'db-migrations', 'auth-login'],
      ['docs-readme', 'api-routes', 'web-pages', 'web-checkout'],
    ]);
    expect(partitionSteps(shopPlan(), 1)).toEqual([['db-schema', 'db-migrations', 'docs-readme', 'api-routes', 'auth-login', 'web-pages', 'web-checkout']]);
    expect(partitionSteps(shopPlan(), 0)).toHaveLength(1);
  });

  it('places every step once, keeps modules whole and in order, and runs levels in order', () => {
    fc.assert(
      fc.property(arbPlan, fc.integer({ min: 1, max: 5 }), (plan, n) => {
        const lanes = partitionSteps(plan, n);
        expect(lanes).toHaveLength(n);
        expect(lanes.flat().sort()).toEqual(stepKeys(plan).sort());
        const levels = moduleLevels(plan);
        const moduleOf = new Map(plan.steps.map((s) => [s.key, s.moduleKey]));
        const laneOfModule = new Map<string, number>();
        lanes.forEach((lane, i) => {
          for (const key of lane) {
            const m = moduleOf.get(key)!;
            expect(laneOfModule.get(m) ?? i).toBe(i);
            laneOfModule.set(m, i);
          }
          const laneLevels = lane.map((k) => levels.get(moduleOf.get(k)!)!);
          expect(laneLevels).toEqual([...laneLevels].sort((a, b) => a - b));
          // A module's steps keep their run order.
          const positions = lane.map((k) => stepKeys(plan).indexOf(k));
          for (let j = 1; j < lane.length; j++) {
            if (moduleOf.get(lane[j]!) === moduleOf.get(lane[j - 1]!)) expect(positions[j]).toBeGreaterThan(positions[j - 1]!);
          }
        });
        // Balanced: on each level, lanes differ by at most the largest module of that level.
        for (const level of new Set(levels.values())) {
          const size = (m: string) => plan.steps.filter((s) => s.moduleKey === m).length;
          const loads = lanes.map((lane) => lane.filter((k) => levels.get(moduleOf.get(k)!) === level).length);
          const largest = Math.max(...[...levels].filter(([, l]) => l === level).map(([m]) => size(m)));
          expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(largest);
        }
        // The guarantee the lanes rest on: dependencies sit on strictly lower levels.
        for (const m of plan.modules) for (const d of m.dependsOn) expect(levels.get(d)!).toBeLessThan(levels.get(m.key)!);
      }),
      runs,
    );
  });
});
