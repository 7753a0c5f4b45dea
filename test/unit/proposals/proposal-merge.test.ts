import fc from 'fast-check';
import { deepEqual } from '../../../src/plans/algebra';
import { changedModuleFields, changedStepFields } from '../../../src/plans/algebra.core';
import { planIssues } from '../../../src/plans/plan.validation';
import type { Plan, PlanModule, PlanStep } from '../../../src/plans/plan';
import { mergeProposalPlans, proposalChanges, proposalConflicts, type Resolution } from '../../../src/proposals/proposal.merge';
import { arbMergeTriple, arbPlan, canonical, planProblems, shopPlan } from '../plans/plan-arbitraries';

const byKey = <T extends { key: string }>(items: readonly T[]) => new Map(items.map((i) => [i.key, i]));
const sameItem = <T extends PlanModule | PlanStep>(kind: 'module' | 'step', a: T | undefined, b: T | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : (kind === 'module' ? changedModuleFields(a as PlanModule, b as PlanModule) : changedStepFields(a as PlanStep, b as PlanStep)).length === 0;

/**
 * Every change one side made to a key the merge reports no conflict for is in the result: the key holds
 * that side's version (or is gone, when that side removed it).
 */
function assertKeepsOneSidedChanges(base: Plan, target: Plan, source: Plan, result: Plan, conflicted: Set<string>) {
  for (const kind of ['module', 'step'] as const) {
    const pick = (p: Plan) => byKey<PlanModule | PlanStep>(kind === 'module' ? p.modules : p.steps);
    const [b, t, s, r] = [pick(base), pick(target), pick(source), pick(result)];
    for (const key of new Set([...b.keys(), ...t.keys(), ...s.keys()])) {
      if (conflicted.has(`${kind}:${key}`)) continue;
      const [vb, vt, vs] = [b.get(key), t.get(key), s.get(key)];
      const targetChanged = !sameItem(kind, vt, vb);
      const sourceChanged = !sameItem(kind, vs, vb);
      if (sourceChanged && !targetChanged) expect(sameItem(kind, r.get(key), vs)).toBe(true);
      if (targetChanged && !sourceChanged) expect(sameItem(kind, r.get(key), vt)).toBe(true);
    }
  }
  for (const section of ['configuration', 'designSystem'] as const) {
    if ([...conflicted].some((c) => c.startsWith(`${section}:`))) continue;
    if (deepEqual(target[section], base[section])) expect(result[section]).toEqual(source[section]);
    if (deepEqual(source[section], base[section])) expect(result[section]).toEqual(target[section]);
  }
}

const resolveAll = (conflicts: ReturnType<typeof proposalConflicts>, take: Resolution['take']): Resolution[] =>
  conflicts.map((c) => ({ kind: c.kind, key: c.key, take }));

describe('the proposal merge (property tests)', () => {
  it('keeps every non-conflicting change of both sides and never breaks a plan rule', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, target, source]) => {
        const conflicts = proposalConflicts(base, target, source);
        const merged = mergeProposalPlans(base, target, source, resolveAll(conflicts, 'ours'));
        expect(merged.unresolved).toEqual([]);
        expect(merged.unknown).toEqual([]);
        expect(planProblems(merged.plan)).toEqual([]);
        assertKeepsOneSidedChanges(base, target, source, merged.plan, new Set(conflicts.map((c) => `${c.kind}:${c.key}`)));
      }),
      { numRuns: 300 },
    );
  });

  it('with any mix of ours and theirs, keeps every non-conflicting change, and the merge’s plan check catches every rule a resolution breaks', () => {
    const bounds = { planMaxModules: 10_000, planMaxSteps: 100_000, planMaxBytes: 100 * 1024 * 1024 };
    fc.assert(
      fc.property(
        arbMergeTriple().chain((triple) => {
          const conflicts = proposalConflicts(...triple);
          return fc.tuple(
            fc.constant(triple),
            fc.constant(conflicts),
            fc.array(fc.constantFrom('ours' as const, 'theirs' as const), { minLength: conflicts.length, maxLength: conflicts.length }),
          );
        }),
        ([[base, target, source], conflicts, takes]) => {
          const resolutions = conflicts.map((c, i) => ({ kind: c.kind, key: c.key, take: takes[i]! }));
          const merged = mergeProposalPlans(base, target, source, resolutions);
          expect(merged.unresolved).toEqual([]);
          assertKeepsOneSidedChanges(base, target, source, merged.plan, new Set(conflicts.map((c) => `${c.kind}:${c.key}`)));
          // The service writes a merge only after planIssues finds nothing (assertValidPlan): whatever breaks
          // a rule here must be found by it, so that a broken plan is a 400 and never a version.
          if (planProblems(merged.plan).length > 0) expect(planIssues(merged.plan, bounds)).not.toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('blocks on every conflict until each has a resolution', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, target, source]) => {
        const merged = mergeProposalPlans(base, target, source, []);
        expect(merged.unresolved).toEqual(merged.conflicts);
        expect(merged.conflicts).toEqual(proposalConflicts(base, target, source));
      }),
      { numRuns: 200 },
    );
  });

  it('changes nothing when merging an empty proposal (the source is the base)', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, target]) => {
        expect(proposalChanges(base, base).isEmpty).toBe(true);
        const merged = mergeProposalPlans(base, target, base);
        expect(merged.conflicts).toEqual([]);
        expect(canonical(merged.plan)).toEqual(canonical(target));
      }),
      { numRuns: 300 },
    );
  });

  it('takes the whole source when the target did not move', () => {
    fc.assert(
      fc.property(arbMergeTriple(), ([base, , source]) => {
        const merged = mergeProposalPlans(base, base, source);
        expect(merged.conflicts).toEqual([]);
        expect(canonical(merged.plan, { steps: 'sorted' })).toEqual(canonical(source, { steps: 'sorted' }));
      }),
      { numRuns: 300 },
    );
  });

  it('lists what the source added, changed and removed, and nothing else', () => {
    fc.assert(
      fc.property(arbPlan, arbPlan, (base, source) => {
        const c = proposalChanges(base, source);
        const b = byKey(base.modules);
        const s = byKey(source.modules);
        for (const m of c.modules) {
          if (m.change === 'added') expect(b.has(m.key) || !s.has(m.key)).toBe(false);
          if (m.change === 'removed') expect(b.has(m.key) && !s.has(m.key)).toBe(true);
          if (m.change === 'changed') expect(m.fields).toEqual(changedModuleFields(b.get(m.key)!, s.get(m.key)!));
        }
        const listed = new Set(c.modules.map((m) => m.key));
        for (const key of new Set([...b.keys(), ...s.keys()])) if (!listed.has(key)) expect(sameItem('module', b.get(key), s.get(key))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('resolutions', () => {
  const base = shopPlan();
  const edit = (p: Plan, change: (q: Plan) => void): Plan => {
    const copy = structuredClone(p);
    change(copy);
    return copy;
  };
  const target = edit(base, (p) => (p.modules.find((m) => m.key === 'db')!.summary = 'ours'));
  const source = edit(base, (p) => {
    p.modules.find((m) => m.key === 'db')!.summary = 'theirs';
    p.configuration = { ...p.configuration, extra: 1 };
  });

  it('applies theirs, ours and custom per key, and reports a resolution that names no conflict', () => {
    expect(mergeProposalPlans(base, target, source, [{ kind: 'module', key: 'db', take: 'theirs' }]).plan.modules.find((m) => m.key === 'db')!.summary).toBe(
      'theirs',
    );
    expect(mergeProposalPlans(base, target, source, [{ kind: 'module', key: 'db', take: 'ours' }]).plan.modules.find((m) => m.key === 'db')!.summary).toBe(
      'ours',
    );
    const custom = { ...base.modules.find((m) => m.key === 'db')!, summary: 'both' };
    const merged = mergeProposalPlans(base, target, source, [
      { kind: 'module', key: 'db', take: 'custom', value: custom },
      { kind: 'step', key: 'nowhere', take: 'ours' },
    ]);
    expect(merged.plan.modules.find((m) => m.key === 'db')!.summary).toBe('both');
    expect(merged.plan.configuration.extra).toBe(1);
    expect(merged.unknown).toEqual([{ kind: 'step', key: 'nowhere', take: 'ours' }]);
  });
});
