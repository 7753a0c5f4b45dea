import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { emptyPlan, type Plan } from '../../../src/plans/plan';
import { diffPlans, intersectPlans, prunePlan, repairPlan, restrictPlan, subtractPlans, unionPlans, weaveOrder } from '../../../src/plans/algebra';
import { arbPlan, canonical, deepFreeze, moduleKeys, planProblems, shopPlan, stepKeys, thaw } from './plan-arbitraries';

const runs = { numRuns: 150 };

/** Every leaf of `part` is in `whole` with the same value. */
function agreesWith(part: Record<string, unknown>, whole: Record<string, unknown>): boolean {
  return Object.entries(part).every(([k, v]) => {
    if (!Object.prototype.hasOwnProperty.call(whole, k)) return false;
    const w = whole[k];
    if (isDeepStrictEqual(v, w)) return true;
    const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
    return isObj(v) && isObj(w) && agreesWith(v, w);
  });
}

describe('unionPlans', () => {
  it('merges disjoint plans into one valid plan, first plan first', () => {
    const a = shopPlan();
    const b = deepFreeze({
      modules: [{ key: 'cache', name: 'Cache', summary: '', kind: 'infra', dependsOn: [] }],
      steps: [{ key: 'cache-setup', moduleKey: 'cache', title: 'Set up', instructions: '', acceptance: [] }],
      configuration: { cache: 'redis' },
      designSystem: {},
    });
    const { plan, conflicts } = unionPlans([a, b]);
    expect(conflicts).toEqual([]);
    expect(moduleKeys(plan)).toEqual([...moduleKeys(a), 'cache']);
    expect(stepKeys(plan)).toEqual([...stepKeys(a), 'cache-setup']);
    expect(plan.configuration).toEqual({ ...a.configuration, cache: 'redis' });
  });

  it('keeps the first version of a key that differs and reports every variant', () => {
    const a = shopPlan();
    const b = thaw(a);
    b.modules[1]!.name = 'Public API';
    b.steps[0]!.title = 'Design the schema';
    b.configuration = { language: 'go', database: { engine: 'postgres', version: 17 } };
    b.designSystem = { theme: { font: 'Roboto' } };
    const { plan, conflicts } = unionPlans([a, b]);
    expect(plan.modules[1]!.name).toBe('API');
    expect(plan.steps[0]!.title).toBe('Do db-schema');
    expect(plan.configuration).toEqual(a.configuration);
    expect(conflicts).toEqual([
      {
        kind: 'module',
        key: 'api',
        variants: [
          { source: 0, value: a.modules[1] },
          { source: 1, value: b.modules[1] },
        ],
      },
      {
        kind: 'step',
        key: 'db-schema',
        variants: [
          { source: 0, value: a.steps[0] },
          { source: 1, value: b.steps[0] },
        ],
      },
      {
        kind: 'configuration',
        key: 'language',
        variants: [
          { source: 0, value: 'typescript' },
          { source: 1, value: 'go' },
        ],
      },
      {
        kind: 'configuration',
        key: 'database.version',
        variants: [
          { source: 0, value: 16 },
          { source: 1, value: 17 },
        ],
      },
      {
        kind: 'designSystem',
        key: 'theme.font',
        variants: [
          { source: 0, value: 'Inter' },
          { source: 1, value: 'Roboto' },
        ],
      },
    ]);
  });

  it('weaves a later plan’s new steps in after the step they follow there', () => {
    const a = shopPlan();
    const b = thaw(a);
    b.steps.splice(3, 0, { key: 'api-tests', moduleKey: 'api', title: 'Test the API', instructions: '', acceptance: [] });
    const { plan } = unionPlans([a, b]);
    expect(stepKeys(plan)).toEqual(['db-schema', 'db-migrations', 'api-routes', 'api-tests', 'auth-login', 'web-pages', 'web-checkout', 'docs-readme']);
  });

  it('does not report a dependency order difference as a conflict', () => {
    const a = shopPlan();
    const b = thaw(a);
    b.modules[3]!.dependsOn = ['auth', 'api'];
    expect(unionPlans([a, b]).conflicts).toEqual([]);
  });

  it('is valid and holds every key of every input', () => {
    fc.assert(
      fc.property(fc.array(arbPlan, { minLength: 1, maxLength: 4 }), (plans) => {
        const { plan, repairs } = unionPlans(plans);
        expect(planProblems(plan)).toEqual([]);
        expect(repairs).toEqual([]);
        expect(new Set(moduleKeys(plan))).toEqual(new Set(plans.flatMap(moduleKeys)));
        expect(new Set(stepKeys(plan))).toEqual(new Set(plans.flatMap(stepKeys)));
      }),
      runs,
    );
  });

  it('lets the first plan win, and reports exactly the keys whose versions differ', () => {
    fc.assert(
      fc.property(arbPlan, arbPlan, (a, b) => {
        const { plan, conflicts } = unionPlans([a, b]);
        for (const m of a.modules) expect(plan.modules.find((x) => x.key === m.key)).toEqual(m);
        for (const s of a.steps) expect(plan.steps.find((x) => x.key === s.key)).toEqual(s);
        // The first plan's run order survives as a subsequence.
        expect(stepKeys(plan).filter((k) => stepKeys(a).includes(k))).toEqual(stepKeys(a));
        // An independent oracle: dependencies compared as a set, everything else as written.
        const sig = (x: object) => JSON.stringify('dependsOn' in x ? { ...x, dependsOn: [...(x.dependsOn as string[])].sort() } : x);
        const differing = (xs: { key: string }[], ys: { key: string }[]) =>
          xs.filter((x) => ys.some((y) => y.key === x.key && sig(y) !== sig(x))).map((x) => x.key);
        expect(
          conflicts
            .filter((c) => c.kind === 'module')
            .map((c) => c.key)
            .sort(),
        ).toEqual(differing(a.modules, b.modules).sort());
        expect(
          conflicts
            .filter((c) => c.kind === 'step')
            .map((c) => c.key)
            .sort(),
        ).toEqual(differing(a.steps, b.steps).sort());
      }),
      runs,
    );
  });

  it('is the identity on one plan and on a plan with itself', () => {
    fc.assert(
      fc.property(arbPlan, (a) => {
        expect(unionPlans([a]).plan).toEqual(a);
        expect(unionPlans([a, a])).toEqual({ plan: a, conflicts: [], repairs: [] });
      }),
      runs,
    );
  });

  it('treats JSON keys named like Object methods as data', () => {
    const a = { ...emptyPlan(), configuration: { constructor: { a: 1 } } };
    const b = { ...emptyPlan(), configuration: { toString: 2, valueOf: { b: 1 } } };
    const { plan, conflicts } = unionPlans([a, b]);
    expect(conflicts).toEqual([]);
    // toStrictEqual compares `constructor` properties by identity, so compare the JSON text.
    expect(JSON.stringify(plan.configuration)).toBe(JSON.stringify({ constructor: { a: 1 }, toString: 2, valueOf: { b: 1 } }));
    expect(planProblems(plan)).toEqual([]);
    expect(diffPlans(a, b).configuration).toEqual({ added: ['toString', 'valueOf'], removed: ['constructor'], changed: [] });
    expect(intersectPlans([a, b]).configuration).toStrictEqual({});
  });

  it('keeps a `__proto__` key as data, never as a prototype', () => {
    const a = { ...emptyPlan(), configuration: JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown> };
    const { plan } = unionPlans([a, emptyPlan()]);
    expect(Object.keys(plan.configuration)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(plan.configuration)).toBe(Object.prototype);
    expect(JSON.stringify(plan.configuration)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('returns the empty plan for no plans', () => {
    expect(unionPlans([])).toEqual({ plan: emptyPlan(), conflicts: [], repairs: [] });
  });
});

describe('intersectPlans', () => {
  it('keeps modules and steps common to all, as the first plan has them', () => {
    const a = shopPlan();
    const b = thaw(a);
    b.modules = b.modules.filter((m) => m.key !== 'api' && m.key !== 'docs');
    b.modules.find((m) => m.key === 'web')!.dependsOn = ['auth'];
    b.modules.find((m) => m.key === 'db')!.summary = 'changed';
    b.steps = b.steps.filter((s) => !['api-routes', 'docs-readme', 'web-checkout'].includes(s.key));
    b.configuration = { language: 'typescript', framework: 'express', database: { engine: 'postgres', version: 15 } };
    const plan = intersectPlans([a, b]);
    expect(plan.modules).toEqual([a.modules[0], a.modules[2], { ...a.modules[3], dependsOn: ['auth'] }]);
    expect(stepKeys(plan)).toEqual(['db-schema', 'db-migrations', 'auth-login', 'web-pages']);
    expect(plan.configuration).toEqual({ language: 'typescript', database: { engine: 'postgres' } });
    expect(plan.designSystem).toEqual(a.designSystem);
  });

  it('is a valid sub-plan of every input', () => {
    fc.assert(
      fc.property(fc.array(arbPlan, { minLength: 1, maxLength: 4 }), (plans) => {
        const plan = intersectPlans(plans);
        expect(planProblems(plan)).toEqual([]);
        for (const p of plans) {
          expect(moduleKeys(plan).every((k) => moduleKeys(p).includes(k))).toBe(true);
          expect(stepKeys(plan).every((k) => stepKeys(p).includes(k))).toBe(true);
          expect(agreesWith(plan.configuration, p.configuration)).toBe(true);
          expect(agreesWith(plan.designSystem, p.designSystem)).toBe(true);
        }
        // Commutative on keys.
        expect(new Set(moduleKeys(intersectPlans([...plans].reverse())))).toEqual(new Set(moduleKeys(plan)));
      }),
      runs,
    );
  });

  it('is the identity on one plan and on a plan with itself', () => {
    fc.assert(
      fc.property(arbPlan, (a) => {
        expect(intersectPlans([a])).toEqual(a);
        expect(intersectPlans([a, a])).toEqual(a);
      }),
      runs,
    );
  });
});

describe('subtractPlans', () => {
  it('keeps the modules of A that B lacks, with their steps and A’s stack', () => {
    const a = shopPlan();
    const b = restrictPlan(a, ['db', 'docs']);
    const plan = subtractPlans(a, b);
    expect(plan.modules).toEqual([{ ...a.modules[1], dependsOn: [] }, { ...a.modules[2], dependsOn: [] }, a.modules[3]]);
    expect(stepKeys(plan)).toEqual(['api-routes', 'auth-login', 'web-pages', 'web-checkout']);
    expect(plan.configuration).toEqual(a.configuration);
  });

  it('removes everything from a plan minus itself and nothing minus the empty plan', () => {
    fc.assert(
      fc.property(arbPlan, (a) => {
        const self = subtractPlans(a, a);
        expect([self.modules, self.steps]).toEqual([[], []]);
        expect(subtractPlans(a, emptyPlan())).toEqual(a);
      }),
      runs,
    );
  });

  it('with the intersection, partitions the modules of A', () => {
    fc.assert(
      fc.property(arbPlan, arbPlan, (a, b) => {
        const rest = subtractPlans(a, b);
        const common = intersectPlans([a, b]);
        expect(planProblems(rest)).toEqual([]);
        expect(moduleKeys(rest).some((k) => moduleKeys(b).includes(k))).toBe(false);
        expect([...moduleKeys(rest), ...moduleKeys(common)].sort()).toEqual(moduleKeys(a).sort());
        expect(stepKeys(rest).every((k) => stepKeys(a).includes(k))).toBe(true);
      }),
      runs,
    );
  });
});

describe('prunePlan', () => {
  it('keeps what the roots need, and their steps', () => {
    const plan = prunePlan(shopPlan(), ['api', 'nowhere']);
    expect(moduleKeys(plan)).toEqual(['db', 'api']);
    expect(stepKeys(plan)).toEqual(['db-schema', 'db-migrations', 'api-routes']);
  });

  it('is the identity with every module as a root, and valid and closed for any roots', () => {
    fc.assert(
      fc.property(
        arbPlan.chain((p) => fc.tuple(fc.constant(p), fc.subarray(moduleKeys(p)))),
        ([plan, roots]) => {
          expect(prunePlan(plan, moduleKeys(plan))).toEqual(plan);
          const pruned = prunePlan(plan, roots);
          expect(planProblems(pruned)).toEqual([]);
          for (const r of roots) expect(moduleKeys(pruned)).toContain(r);
          // Closed: a kept module keeps all of its dependencies.
          for (const m of pruned.modules) expect(m).toEqual(plan.modules.find((x) => x.key === m.key));
        },
      ),
      runs,
    );
  });
});

describe('diffPlans', () => {
  it('reports what changed, section by section', () => {
    const before = shopPlan();
    const after = thaw(before);
    after.modules = after.modules.filter((m) => m.key !== 'docs');
    after.steps = after.steps.filter((s) => s.moduleKey !== 'docs');
    after.modules.push({ key: 'cache', name: 'Cache', summary: '', kind: 'infra', dependsOn: [] });
    after.modules.find((m) => m.key === 'web')!.dependsOn = ['api'];
    after.modules.find((m) => m.key === 'web')!.kind = 'spa';
    after.steps.find((s) => s.key === 'api-routes')!.acceptance.push('documented');
    after.configuration = { language: 'typescript', database: { engine: 'postgres', version: 17, pool: 10 } };
    const diff = diffPlans(before, after);
    expect(diff).toEqual({
      modules: { added: ['cache'], removed: ['docs'], changed: [{ key: 'web', fields: ['kind', 'dependsOn'] }] },
      steps: { added: [], removed: ['docs-readme'], changed: [{ key: 'api-routes', fields: ['acceptance'] }], reordered: false },
      configuration: { added: ['database.pool'], removed: ['framework'], changed: ['database.version'] },
      designSystem: { added: [], removed: [], changed: [] },
      sectionsTouched: ['modules', 'steps', 'configuration'],
      isEmpty: false,
    });
  });

  it('notices a reorder of the run, and only that', () => {
    const before = shopPlan();
    const after = thaw(before);
    after.steps.reverse();
    const diff = diffPlans(before, after);
    expect(diff.steps).toEqual({ added: [], removed: [], changed: [], reordered: true });
    expect(diff.sectionsTouched).toEqual(['steps']);
  });

  it('names awkward JSON keys unambiguously', () => {
    const diff = diffPlans({ ...emptyPlan(), designSystem: { theme: { 'font.size': 12 } } }, { ...emptyPlan(), designSystem: { theme: { 'font.size': 14 } } });
    expect(diff.designSystem.changed).toEqual(['theme["font.size"]']);
  });

  it('is empty from a plan to itself', () => {
    fc.assert(
      fc.property(arbPlan, (a) => {
        const diff = diffPlans(a, a);
        expect(diff.isEmpty).toBe(true);
        expect(diff.sectionsTouched).toEqual([]);
      }),
      runs,
    );
  });

  it('swaps added and removed when the plans swap, and is empty exactly for equivalent plans', () => {
    fc.assert(
      fc.property(arbPlan, arbPlan, (a, b) => {
        const ab = diffPlans(a, b);
        const ba = diffPlans(b, a);
        expect(ab.modules.added).toEqual(ba.modules.removed);
        expect(ab.steps.removed).toEqual(ba.steps.added);
        expect(ab.configuration.added).toEqual(ba.configuration.removed);
        expect(ab.designSystem.changed).toEqual(ba.designSystem.changed);
        expect(ab.sectionsTouched).toEqual(ba.sectionsTouched);
        expect(ab.modules.added).toEqual(moduleKeys(b).filter((k) => !moduleKeys(a).includes(k)));
        const equivalent = isDeepStrictEqual(canonical(a), canonical(b));
        expect(ab.isEmpty).toBe(equivalent);
      }),
      runs,
    );
  });
});

describe('repairPlan', () => {
  it('drops what breaks a rule and says why', () => {
    const broken: Plan = {
      modules: [
        { key: 'a', name: 'A', summary: '', kind: 'x', dependsOn: ['b', 'a', 'ghost'] },
        { key: 'b', name: 'B', summary: '', kind: 'x', dependsOn: ['a'] },
        { key: 'a', name: 'A again', summary: '', kind: 'x', dependsOn: [] },
      ],
      steps: [
        { key: 's', moduleKey: 'a', title: 'S', instructions: '', acceptance: [] },
        { key: 's', moduleKey: 'b', title: 'S again', instructions: '', acceptance: [] },
        { key: 't', moduleKey: 'ghost', title: 'T', instructions: '', acceptance: [] },
      ],
      configuration: {},
      designSystem: {},
    };
    const { plan, repairs } = repairPlan(broken, { preferEdge: (from) => from === 'b' });
    expect(planProblems(plan)).toEqual([]);
    expect(plan.modules.map((m) => [m.key, m.dependsOn])).toEqual([
      ['a', []],
      ['b', ['a']],
    ]);
    expect(repairs).toEqual([
      { kind: 'module', key: 'a', reason: 'duplicate-key' },
      { kind: 'module', key: 'a', reason: 'self-dependency', dependency: 'a' },
      { kind: 'module', key: 'a', reason: 'missing-dependency', dependency: 'ghost' },
      { kind: 'module', key: 'a', reason: 'cycle', dependency: 'b' },
      { kind: 'step', key: 's', reason: 'duplicate-key' },
      { kind: 'step', key: 't', reason: 'missing-module' },
    ]);
  });

  it('leaves a valid plan alone', () => {
    fc.assert(
      fc.property(arbPlan, (a) => expect(repairPlan(a)).toEqual({ plan: a, repairs: [] })),
      runs,
    );
  });
});

describe('weaveOrder', () => {
  it('places new keys after their predecessor, before their successor, or at the end', () => {
    expect(weaveOrder(['a', 'b'], ['a', 'n', 'b'])).toEqual(['a', 'n', 'b']);
    expect(weaveOrder(['a', 'b'], ['n', 'b'])).toEqual(['a', 'n', 'b']);
    expect(weaveOrder(['a', 'b'], ['x', 'y'])).toEqual(['a', 'b', 'x', 'y']);
    expect(weaveOrder(['a', 'c', 'b'], ['a', 'n', 'm', 'b'])).toEqual(['a', 'n', 'm', 'c', 'b']);
  });
});
