import fc from 'fast-check';
import { emptyPlan, type Plan } from '../../../src/plans/plan';
import { mutatePlan, planSimilarity, planSimilarityBreakdown, planStats, reachableFrom, seededRandom } from '../../../src/plans/algebra';
import { arbPlan, moduleKeys, planProblems, shopPlan, stepKeys, thaw } from './plan-arbitraries';

const runs = { numRuns: 150 };
const arbSeed = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }));
const arbRate = fc.double({ min: 0, max: 1, noNaN: true });

describe('seededRandom', () => {
  it('repeats its sequence for a seed, differs across seeds, and stays in [0, 1)', () => {
    const draw = (seed: number | string) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw('abc')).toEqual(draw('abc'));
    expect(draw(7)).toEqual(draw('7'));
    expect(draw(1)).not.toEqual(draw(2));
    fc.assert(
      fc.property(arbSeed, (seed) => draw(seed).every((x) => x >= 0 && x < 1)),
      runs,
    );
  });
});

describe('mutatePlan', () => {
  it('changes nothing at rate 0', () => {
    fc.assert(
      fc.property(arbPlan, arbSeed, (plan, seed) => expect(mutatePlan(plan, seed, 0)).toEqual(plan)),
      runs,
    );
  });

  it('gives the same plan for the same seed, and a valid one', () => {
    fc.assert(
      fc.property(arbPlan, arbSeed, arbRate, (plan, seed, rate) => {
        const once = mutatePlan(plan, seed, rate);
        expect(mutatePlan(plan, seed, rate)).toEqual(once);
        expect(planProblems(once)).toEqual([]);
        // Only additions: every module and step survives, modules and JSON untouched.
        expect(once.modules).toEqual(plan.modules);
        expect([once.configuration, once.designSystem]).toEqual([plan.configuration, plan.designSystem]);
        expect(stepKeys(plan).every((k) => stepKeys(once).includes(k))).toBe(true);
      }),
      runs,
    );
  });

  it('never reorders steps of one module or of modules that depend on each other', () => {
    fc.assert(
      fc.property(arbPlan, arbSeed, arbRate, (plan, seed, rate) => {
        const mutated = mutatePlan(plan, seed, rate);
        const position = new Map(stepKeys(mutated).map((k, i) => [k, i]));
        const related = (a: string, b: string) => a === b || reachableFrom(plan, [a]).has(b) || reachableFrom(plan, [b]).has(a);
        plan.steps.forEach((s, i) =>
          plan.steps.slice(i + 1).forEach((t) => {
            if (related(s.moduleKey, t.moduleKey)) expect(position.get(s.key)!).toBeLessThan(position.get(t.key)!);
          }),
        );
      }),
      runs,
    );
  });

  it('varies titles, checks, steps and order at rate 1, differently per seed', () => {
    const plan = shopPlan();
    const variants = ['a', 'b', 'c', 'd'].map((seed) => mutatePlan(plan, seed, 1));
    for (const v of variants) expect(v).not.toEqual(plan);
    expect(new Set(variants.map((v) => JSON.stringify(v))).size).toBeGreaterThan(1);
    const all = variants.flatMap((v) => v.steps);
    expect(all.some((s) => / \((revised|alternative|hardened|simplified|incremental|experimental)\)$/.test(s.title))).toBe(true);
    expect(all.some((s) => s.key.endsWith('-variant'))).toBe(true);
    expect(all.some((s) => s.acceptance.length > 1)).toBe(true);
    expect(
      variants.some(
        (v) =>
          stepKeys(v)
            .filter((k) => stepKeys(plan).includes(k))
            .join() !== stepKeys(plan).join(),
      ),
    ).toBe(true);
  });

  it('changes more as the rate grows', () => {
    const plan = shopPlan();
    const changed = (rate: number) =>
      Array.from({ length: 20 }, (_, seed) => {
        const m = mutatePlan(plan, seed, rate);
        return m.steps.length - plan.steps.length + m.steps.filter((s, i) => JSON.stringify(s) !== JSON.stringify(plan.steps[i])).length;
      }).reduce((a, b) => a + b, 0);
    expect(changed(0.1)).toBeGreaterThan(0);
    expect(changed(0.1)).toBeLessThan(changed(0.5));
    expect(changed(0.5)).toBeLessThan(changed(1));
  });

  it('keeps variant keys unique and within the schema limits', () => {
    const plan = thaw(shopPlan());
    plan.steps.push({ ...plan.steps[0]!, key: 'db-schema-variant' });
    plan.steps.push({ ...plan.steps[0]!, key: `${'x'.repeat(92)}-long`, title: 'T'.repeat(299) });
    for (let seed = 0; seed < 30; seed++) expect(planProblems(mutatePlan(plan, seed, 1))).toEqual([]);
  });
});

describe('planSimilarity', () => {
  it('is 1 for the same graph, 0 for graphs sharing nothing, in between otherwise', () => {
    const shop = shopPlan();
    expect(planSimilarity(shop, shop)).toBe(1);
    expect(planSimilarity(emptyPlan(), emptyPlan())).toBe(1);
    const other: Plan = {
      ...emptyPlan(),
      modules: [
        { key: 'x', name: 'X', summary: '', kind: 'ml', dependsOn: [] },
        { key: 'y', name: 'Y', summary: '', kind: 'ml', dependsOn: ['x'] },
      ],
    };
    expect(planSimilarity(shop, other)).toBe(0);
    const withoutDocs = { ...shop, modules: shop.modules.filter((m) => m.key !== 'docs') };
    const b = planSimilarityBreakdown(shop, withoutDocs);
    expect(b).toEqual({ modules: 4 / 5, edges: 1, kinds: 4 / 5, shape: 1, score: (35 * 0.8 + 25 + 20 * 0.8 + 20) / 100 });
  });

  it('matches the same shape under other names through kinds', () => {
    const shop = shopPlan();
    const renamed = {
      modules: shop.modules.map((m) => ({ ...m, key: `my-${m.key}`, dependsOn: m.dependsOn.map((d) => `my-${d}`) })),
    };
    const b = planSimilarityBreakdown(shop, renamed);
    expect([b.modules, b.edges, b.kinds, b.shape]).toEqual([0, 0, 1, 1]);
  });

  it('is symmetric, within [0, 1], and 1 for a plan with itself', () => {
    fc.assert(
      fc.property(arbPlan, arbPlan, (a, b) => {
        const s = planSimilarity(a, b);
        expect(s).toBe(planSimilarity(b, a));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(planSimilarity(a, a)).toBe(1);
        if (s === 1) expect(new Set(moduleKeys(a))).toEqual(new Set(moduleKeys(b)));
      }),
      runs,
    );
  });
});

describe('planStats', () => {
  it('describes the shop plan', () => {
    expect(planStats(shopPlan())).toEqual({
      modules: 5,
      steps: 7,
      dependencies: 4,
      modulesByKind: { backend: 2, data: 1, docs: 1, frontend: 1 },
      stepsByModule: { db: 2, api: 1, auth: 1, web: 2, docs: 1 },
      stepsPerModule: { min: 1, max: 2, mean: 7 / 5 },
      acceptanceChecks: 6,
      stepsWithoutAcceptance: 1,
      modulesWithoutSteps: 0,
      depth: 3,
      width: 2,
      entryPoints: ['docs', 'web'],
      foundations: ['db', 'docs'],
      clusters: 2,
      criticalPath: ['db', 'api', 'web'],
      criticalPathWeight: 5,
      stack: { language: 'typescript', framework: 'fastify' },
    });
  });

  it('describes the empty plan without dividing by zero', () => {
    const stats = planStats(emptyPlan());
    expect([stats.modules, stats.depth, stats.width, stats.stepsPerModule, stats.criticalPath]).toEqual([0, 0, 0, { min: 0, max: 0, mean: 0 }, []]);
  });

  it('adds up on any plan', () => {
    fc.assert(
      fc.property(arbPlan, (plan) => {
        const stats = planStats(plan);
        expect(Object.values(stats.modulesByKind).reduce((a, b) => a + b, 0)).toBe(plan.modules.length);
        expect(Object.values(stats.stepsByModule).reduce((a, b) => a + b, 0)).toBe(plan.steps.length);
        expect(stats.dependencies).toBe(plan.modules.reduce((n, m) => n + m.dependsOn.length, 0));
        expect(stats.depth).toBeLessThanOrEqual(plan.modules.length);
        expect(stats.foundations.length > 0).toBe(plan.modules.length > 0);
      }),
      runs,
    );
  });
});
