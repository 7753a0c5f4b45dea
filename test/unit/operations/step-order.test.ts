import { firstStepOutOfOrder, runnableOrder } from '../../../src/operations/step-order';
import { DependencyGraph, freshKey } from '../../../src/operations/tool-checks';
import type { PlanModule, PlanStep } from '../../../src/plans/plan';

const mod = (key: string, dependsOn: string[] = []): PlanModule => ({ key, name: key, summary: '', kind: 'service', dependsOn });
const step = (key: string, moduleKey: string): PlanStep => ({ key, moduleKey, title: key, instructions: '', acceptance: [] });

// web -> api -> db, and mail with no dependencies; `empty` has no steps but depends on db.
const modules = [mod('db'), mod('api', ['db']), mod('web', ['api']), mod('mail'), mod('empty', ['db']), mod('ui', ['empty'])];

describe('runnableOrder', () => {
  it('keeps an order in which every step follows the steps of its dependencies', () => {
    const steps = [step('s1', 'db'), step('m1', 'mail'), step('a1', 'api'), step('w1', 'web')];
    expect(runnableOrder({ modules, steps }).map((s) => s.key)).toEqual(['s1', 'm1', 'a1', 'w1']);
    expect(firstStepOutOfOrder({ modules, steps })).toBe(-1);
  });

  it('moves a step only as far as its dependencies require', () => {
    const steps = [step('w1', 'web'), step('a1', 'api'), step('m1', 'mail'), step('s1', 'db'), step('s2', 'db')];
    expect(firstStepOutOfOrder({ modules, steps })).toBe(0);
    expect(runnableOrder({ modules, steps }).map((s) => s.key)).toEqual(['m1', 's1', 's2', 'a1', 'w1']);
  });

  it('sees through a module without steps to what it depends on', () => {
    const steps = [step('u1', 'ui'), step('s1', 'db')];
    expect(firstStepOutOfOrder({ modules, steps })).toBe(0);
    expect(runnableOrder({ modules, steps }).map((s) => s.key)).toEqual(['s1', 'u1']);
  });
});

describe('DependencyGraph', () => {
  it('names the path an edge would close into a cycle, and accepts edges that close none', () => {
    const graph = new DependencyGraph(modules);
    expect(graph.cycleThrough('db', 'web')).toEqual(['web', 'api', 'db']);
    expect(graph.cycleThrough('db', 'db')).toEqual(['db']);
    expect(graph.cycleThrough('mail', 'web')).toBeNull();
    graph.add('mail', 'web');
    expect(graph.cycleThrough('db', 'mail')).toEqual(['mail', 'web', 'api', 'db']);
  });
});

describe('freshKey', () => {
  it('suffixes a taken key with the first free number and stays within 100 characters', () => {
    const taken = new Set(['a', 'a-2']);
    expect(freshKey('a', taken)).toBe('a-3');
    expect(freshKey('b', taken)).toBe('b');
    const long = 'x'.repeat(100);
    expect(freshKey(long, new Set([long]))).toBe(`${'x'.repeat(98)}-2`);
  });
});
