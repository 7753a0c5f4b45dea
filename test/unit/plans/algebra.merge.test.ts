import fc from 'fast-check';
import type { Plan } from '../../../src/plans/plan';
import { mergeThreeWay } from '../../../src/plans/algebra';
import { arbDerived, arbMergeTriple, arbPlan, canonical, deepFreeze, moduleKeys, planProblems, shopPlan, stepKeys, thaw } from './plan-arbitraries';

const runs = { numRuns: 150 };

/** A fork point, and a copy of it to edit into ours or theirs. */
function fork(): [Plan, Plan] {
  const base = shopPlan();
  return [base, thaw(base)];
}

describe('mergeThreeWay', () => {
  it('takes changes made on one side only, from both sides', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    ours.steps.find((s) => s.key === 'api-routes')!.title = 'Design the routes';
    ours.designSystem = { theme: { colors: { primary: '#000000', accent: '#ff9900' }, font: 'Inter' } };
    theirs.modules.push({ key: 'cache', name: 'Cache', summary: '', kind: 'infra', dependsOn: [] });
    theirs.modules.find((m) => m.key === 'api')!.dependsOn.push('cache');
    theirs.steps.splice(3, 0, { key: 'cache-setup', moduleKey: 'cache', title: 'Set up the cache', instructions: '', acceptance: [] });
    theirs.configuration = { ...base.configuration, database: { engine: 'postgres', version: 17 } };
    theirs.designSystem = { theme: { colors: { primary: '#0055ff', accent: '#ff9900' }, font: 'Roboto' } };

    const { plan, conflicts, shielded } = mergeThreeWay(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(shielded).toEqual([]);
    expect(moduleKeys(plan)).toEqual(['db', 'api', 'auth', 'web', 'docs', 'cache']);
    expect(plan.modules[1]!.dependsOn).toEqual(['db', 'cache']);
    expect(stepKeys(plan)).toEqual(['db-schema', 'db-migrations', 'api-routes', 'cache-setup', 'auth-login', 'web-pages', 'web-checkout', 'docs-readme']);
    expect(plan.steps[2]!.title).toBe('Design the routes');
    expect(plan.configuration).toEqual({ language: 'typescript', framework: 'fastify', database: { engine: 'postgres', version: 17 } });
    expect(plan.designSystem).toEqual({ theme: { colors: { primary: '#000000', accent: '#ff9900' }, font: 'Roboto' } });
  });

  it('keeps ours and reports a conflict where both sides changed the same thing differently', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    ours.steps[0]!.title = 'Ours';
    theirs.steps[0]!.title = 'Theirs';
    ours.configuration.framework = 'express';
    theirs.configuration.framework = 'koa';
    ours.modules = ours.modules.filter((m) => m.key !== 'docs');
    ours.steps = ours.steps.filter((s) => s.key !== 'docs-readme');
    theirs.modules.find((m) => m.key === 'docs')!.summary = 'Now with examples';

    const { plan, conflicts } = mergeThreeWay(base, ours, theirs);
    expect(plan.steps[0]!.title).toBe('Ours');
    expect(plan.configuration.framework).toBe('express');
    expect(moduleKeys(plan)).not.toContain('docs');
    expect(conflicts).toEqual([
      { kind: 'module', key: 'docs', reason: 'changed-and-removed', base: base.modules[4], theirs: theirs.modules[4] },
      { kind: 'step', key: 'db-schema', reason: 'both-changed', base: base.steps[0], ours: ours.steps[0], theirs: theirs.steps[0] },
      { kind: 'configuration', key: 'framework', reason: 'both-changed', base: 'fastify', ours: 'express', theirs: 'koa' },
    ]);
  });

  it('takes the same change made on both sides once, without a conflict', () => {
    const [base, ours] = fork();
    ours.steps[1]!.acceptance.push('rolls back');
    ours.configuration.language = 'go';
    const theirs = thaw(ours);
    expect(mergeThreeWay(base, ours, theirs)).toEqual({ plan: ours, conflicts: [], shielded: [] });
  });

  it('brings back a module upstream removed when our new step still needs it', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    ours.steps.push({ key: 'docs-api', moduleKey: 'docs', title: 'Document the API', instructions: '', acceptance: [] });
    theirs.modules = theirs.modules.filter((m) => m.key !== 'docs');
    theirs.steps = theirs.steps.filter((s) => s.moduleKey !== 'docs');
    const { plan, conflicts } = mergeThreeWay(base, ours, theirs);
    expect(planProblems(plan)).toEqual([]);
    expect(moduleKeys(plan)).toContain('docs');
    expect(stepKeys(plan)).toEqual([...stepKeys(base).filter((k) => k !== 'docs-readme'), 'docs-api']);
    expect(conflicts).toEqual([{ kind: 'module', key: 'docs', reason: 'changed-and-removed', base: base.modules[4], ours: ours.modules[4] }]);
  });

  it('drops an upstream dependency that would close a cycle with ours', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    ours.modules.find((m) => m.key === 'docs')!.dependsOn = ['web'];
    theirs.modules.find((m) => m.key === 'db')!.dependsOn = ['docs'];
    const { plan, conflicts } = mergeThreeWay(base, ours, theirs);
    expect(planProblems(plan)).toEqual([]);
    expect(plan.modules.find((m) => m.key === 'docs')!.dependsOn).toEqual(['web']);
    expect(plan.modules.find((m) => m.key === 'db')!.dependsOn).toEqual([]);
    expect(conflicts).toEqual([{ kind: 'module', key: 'db', reason: 'cycle', dependency: 'docs' }]);
  });

  it('follows the side that reordered the run, and reports when both did differently', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    theirs.steps.reverse();
    ours.steps.push({ key: 'web-tests', moduleKey: 'web', title: 'Test the web', instructions: '', acceptance: [] });
    const merged = mergeThreeWay(base, ours, theirs);
    expect(stepKeys(merged.plan)).toEqual(['docs-readme', 'web-tests', 'web-checkout', 'web-pages', 'auth-login', 'api-routes', 'db-migrations', 'db-schema']);
    expect(merged.conflicts).toEqual([]);

    ours.steps.splice(0, 2, ours.steps[1]!, ours.steps[0]!);
    const both = mergeThreeWay(base, ours, theirs);
    expect(stepKeys(both.plan)).toEqual(stepKeys(ours));
    expect(both.conflicts).toEqual([{ kind: 'stepOrder', key: 'steps', reason: 'both-reordered' }]);
  });

  it('holds pinned sections, modules and paths at ours and lists what upstream changed there', () => {
    const [base, ours] = fork();
    const theirs = thaw(base);
    theirs.designSystem = { theme: { colors: { primary: 'red', accent: '#ff9900' }, font: 'Comic' } };
    theirs.modules.find((m) => m.key === 'auth')!.name = 'Identity';
    theirs.steps.find((s) => s.key === 'auth-login')!.title = 'Log in with passkeys';
    theirs.steps.push({ key: 'auth-sso', moduleKey: 'auth', title: 'SSO', instructions: '', acceptance: [] });
    theirs.configuration = { language: 'typescript', framework: 'koa', database: { engine: 'mysql', version: 8 } };
    theirs.modules.find((m) => m.key === 'web')!.summary = 'Upstream web';

    const { plan, conflicts, shielded } = mergeThreeWay(base, ours, theirs, {
      pinned: { sections: ['designSystem'], modules: ['auth'], paths: ['configuration.database'] },
    });
    expect(conflicts).toEqual([]);
    expect(plan.designSystem).toEqual(base.designSystem);
    expect(plan.modules.find((m) => m.key === 'auth')).toEqual(base.modules[2]);
    expect(plan.steps.find((s) => s.key === 'auth-login')).toEqual(base.steps[3]);
    expect(stepKeys(plan)).not.toContain('auth-sso');
    expect(plan.configuration).toEqual({ language: 'typescript', framework: 'koa', database: base.configuration.database });
    expect(plan.modules.find((m) => m.key === 'web')!.summary).toBe('Upstream web');
    expect(shielded).toEqual([
      { kind: 'module', key: 'auth' },
      { kind: 'step', key: 'auth-login' },
      { kind: 'step', key: 'auth-sso' },
      { kind: 'configuration', key: 'database.engine' },
      { kind: 'configuration', key: 'database.version' },
      { kind: 'designSystem', key: 'theme.colors.primary' },
      { kind: 'designSystem', key: 'theme.font' },
    ]);
  });

  it('returns ours when upstream did nothing, and theirs when we did nothing', () => {
    fc.assert(
      fc.property(
        arbPlan.chain((base) => fc.tuple(fc.constant(base), fc.oneof(arbDerived(base), arbPlan))),
        ([base, x]) => {
          expect(mergeThreeWay(base, x, base)).toEqual({ plan: x, conflicts: [], shielded: [] });
          // A module upstream left equivalent to base (dependencies in another order) stays as base has it.
          const taken = mergeThreeWay(base, base, x);
          expect({ ...taken, plan: canonical(taken.plan) }).toEqual({ plan: canonical(x), conflicts: [], shielded: [] });
          expect(stepKeys(taken.plan)).toEqual(stepKeys(x));
          expect(mergeThreeWay(base, x, x)).toEqual({ plan: x, conflicts: [], shielded: [] });
        },
      ),
      runs,
    );
  });

  it('always gives a valid plan, holding only keys some side has', () => {
    fc.assert(
      fc.property(fc.oneof(arbMergeTriple(), fc.tuple(arbPlan, arbPlan, arbPlan)), ([base, ours, theirs]) => {
        const { plan } = mergeThreeWay(base, ours, theirs);
        expect(planProblems(plan)).toEqual([]);
        const known = new Set([...moduleKeys(ours), ...moduleKeys(theirs)]);
        expect(moduleKeys(plan).every((k) => known.has(k))).toBe(true);
        // Nothing both sides still have is lost.
        for (const k of moduleKeys(ours)) if (moduleKeys(theirs).includes(k)) expect(moduleKeys(plan)).toContain(k);
      }),
      runs,
    );
  });

  it('resolves every conflict about a module or step to our version', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, ours, theirs]) => {
        const { plan, conflicts } = mergeThreeWay(base, ours, theirs);
        const dropped = new Set(conflicts.filter((c) => c.reason === 'missing-module').map((c) => c.key));
        for (const c of conflicts.filter((x) => ['both-changed', 'both-added', 'changed-and-removed'].includes(x.reason))) {
          if (c.kind === 'module') {
            const mine = ours.modules.find((m) => m.key === c.key);
            const merged = plan.modules.find((m) => m.key === c.key);
            // Dependencies may lose a module neither side kept, or an upstream edge closing a cycle.
            expect(merged && { ...merged, dependsOn: [] }).toEqual(mine && { ...mine, dependsOn: [] });
          }
          if (c.kind === 'step' && !dropped.has(c.key)) expect(plan.steps.find((s) => s.key === c.key)).toEqual(ours.steps.find((s) => s.key === c.key));
        }
      }),
      runs,
    );
  });

  it('gives the same content whichever side is ours, when nothing conflicts', () => {
    fc.assert(
      fc.property(arbMergeTriple({ small: true }), ([base, ours, theirs]) => {
        const a = mergeThreeWay(base, ours, theirs);
        const b = mergeThreeWay(base, theirs, ours);
        fc.pre(a.conflicts.length === 0);
        expect(b.conflicts).toEqual([]);
        expect(canonical(a.plan, { steps: 'sorted' })).toEqual(canonical(b.plan, { steps: 'sorted' }));
      }),
      runs,
    );
  });

  it('returns ours exactly when every section is pinned', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, ours, theirs]) => {
        const all = { sections: ['modules', 'steps', 'configuration', 'designSystem'] as const };
        const { plan, conflicts } = mergeThreeWay(base, ours, theirs, { pinned: { sections: [...all.sections] } });
        expect(plan).toEqual(ours);
        expect(conflicts).toEqual([]);
      }),
      runs,
    );
  });

  it('treats a JSON key named like an Object method as data', () => {
    const base = { ...shopPlan(), configuration: { constructor: { a: 1 }, toString: 'x', language: 'ts' } };
    const ours = { ...base, configuration: { toString: 'x', language: 'go' } };
    const theirs = { ...base, configuration: { constructor: { a: 1 }, language: 'ts', extra: true } };
    const { plan, conflicts } = mergeThreeWay(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(plan.configuration).toStrictEqual({ language: 'go', extra: true });
    expect(planProblems(plan)).toEqual([]);
  });

  it('does not edit its inputs', () => {
    const [base, ours] = fork();
    ours.modules.pop();
    const frozen = deepFreeze(ours);
    expect(() => mergeThreeWay(base, frozen, shopPlan())).not.toThrow();
  });
});
