import { buildSystemPrompt, type PromptSubject } from '../../../src/execution/execution.prompt';

const subject: PromptSubject = {
  name: 'Shop',
  slug: 'shop',
  description: 'An online shop',
  plan: {
    modules: [
      { key: 'web', name: 'Web app', kind: 'frontend', summary: 'React UI', dependsOn: ['api'] },
      { key: 'api', name: 'API', kind: 'backend', summary: 'HTTP API', dependsOn: ['db'] },
      { key: 'db', name: 'Database', kind: 'data', summary: '', dependsOn: [] },
    ],
    steps: [
      { key: 'schema', moduleKey: 'db', title: 'Schema', instructions: 'x', acceptance: [] },
      { key: 'routes', moduleKey: 'api', title: 'Routes', instructions: 'x', acceptance: [] },
      { key: 'more-routes', moduleKey: 'api', title: 'More', instructions: 'x', acceptance: [] },
    ],
    configuration: { language: 'typescript', framework: 'fastify' },
    designSystem: { colors: { primary: '#123456' } },
  },
};

describe('buildSystemPrompt', () => {
  const prompt = buildSystemPrompt(subject, null);

  it('names the blueprint, its description and its size', () => {
    expect(prompt).toContain('"Shop" (shop)');
    expect(prompt).toContain('An online shop');
    expect(prompt).toContain('3 modules in 3 steps');
  });

  it('carries the configuration and the design system as JSON', () => {
    expect(prompt).toContain('"framework": "fastify"');
    expect(prompt).toContain('"primary": "#123456"');
  });

  it('lists modules in build order with their dependencies and step counts', () => {
    const db = prompt.indexOf('- db — Database (data)');
    const api = prompt.indexOf('- api — API (backend): HTTP API. Depends on: db. Steps: 2.');
    const web = prompt.indexOf('- web — Web app (frontend): React UI. Depends on: api. Steps: 0.');
    expect(db).toBeGreaterThan(-1);
    expect(api).toBeGreaterThan(db);
    expect(web).toBeGreaterThan(api);
    expect(prompt).toContain('Depends on: nothing');
  });

  it('adds team coding conventions only when the team has some', () => {
    expect(prompt).not.toContain('Coding conventions');
    expect(buildSystemPrompt(subject, { teamName: 'Core', conventions: '   ' })).toBe(prompt);
    const withTeam = buildSystemPrompt(subject, { teamName: 'Core', conventions: 'Use tabs. No default exports.' });
    expect(withTeam).toContain('## Coding conventions of team "Core"');
    expect(withTeam).toContain('Use tabs. No default exports.');
  });

  it('is the same for the same blueprint', () => {
    expect(buildSystemPrompt(subject, null)).toBe(prompt);
  });
});
