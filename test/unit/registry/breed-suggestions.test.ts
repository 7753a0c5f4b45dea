import type { PlanModule } from '../../../src/plans/plan';
import { breedScore } from '../../../src/registry/breed-suggestions';

const mod = (key: string, kind = 'service', dependsOn: string[] = []): PlanModule => ({ key, name: key, summary: '', kind, dependsOn });
const plan = (...modules: PlanModule[]) => ({ modules });

describe('breedScore', () => {
  const base = plan(mod('db', 'data'), mod('api', 'backend', ['db']));

  it('is 0 for a copy: nothing new to gain', () => {
    expect(breedScore(base, base)).toEqual({ score: 0, sharedModules: ['api', 'db'], newModules: [] });
  });

  it('is 0 for a plan with nothing in common', () => {
    expect(breedScore(base, plan(mod('cli', 'tool'), mod('docs', 'docs'))).score).toBe(0);
  });

  it('rewards a plan that fits and brings new modules, and names both sides', () => {
    const candidate = plan(mod('db', 'data'), mod('api', 'backend', ['db']), mod('web', 'frontend', ['api']));
    const s = breedScore(base, candidate);
    expect(s.sharedModules).toEqual(['api', 'db']);
    expect(s.newModules).toEqual(['web']);
    expect(s.score).toBeGreaterThan(0);
    expect(s.score).toBeLessThanOrEqual(1);
  });

  it('prefers the candidate that brings more while fitting as well', () => {
    const one = plan(mod('db', 'data'), mod('api', 'backend', ['db']), mod('web', 'frontend', ['api']));
    const two = plan(mod('db', 'data'), mod('api', 'backend', ['db']), mod('web', 'frontend', ['api']), mod('mail', 'service'), mod('jobs', 'service', ['db']));
    expect(breedScore(base, two).score).toBeGreaterThan(breedScore(base, one).score);
  });
});
