import fc from 'fast-check';
import type { Plan } from '../../../src/plans/plan';
import { exportFormats, FileError, parseImport, renderExport, type Exported } from '../../../src/transfer/transfer.format';
import { arbWildPlan } from './transfer-arbitraries';

const source = (plan: Plan): Exported => ({
  id: '6f1c7a3e-0d2b-4c5e-9a8f-123456789abc',
  slug: 'shop',
  version: 3,
  name: 'Shop\n---',
  description: 'A "shop"',
  tags: ['e-commerce'],
  plan,
});

describe('export then import', () => {
  it.each(exportFormats)('%s gives back the same modules, steps, configuration and design system (property)', (format) => {
    fc.assert(
      fc.property(arbWildPlan, (plan) => {
        const back = parseImport(format, renderExport(format, source(plan)));
        expect(back.plan).toEqual({ modules: plan.modules, steps: plan.steps, configuration: plan.configuration, designSystem: plan.designSystem });
        expect({ id: back.id, slug: back.slug, version: back.version, name: back.name }).toEqual({
          id: '6f1c7a3e-0d2b-4c5e-9a8f-123456789abc',
          slug: 'shop',
          version: 3,
          name: 'Shop\n---',
        });
      }),
      { numRuns: 150 },
    );
  });

  it('cursor-rules writes one .mdc per module with description, globs from the configuration, alwaysApply and the blueprint it names, plus an index', () => {
    const plan: Plan = {
      modules: [
        { key: 'db', name: 'Database', summary: 'Tables', kind: 'data', dependsOn: [] },
        { key: 'web', name: 'Web', summary: '', kind: 'frontend', dependsOn: ['db'] },
      ],
      steps: [{ key: 'schema', moduleKey: 'db', title: 'Schema', instructions: 'Write it', acceptance: ['applies'] }],
      configuration: { globs: { web: ['src/web/**/*.tsx'] } },
      designSystem: {},
    };
    const files = renderExport('cursor-rules', source(plan));
    expect(files.map((f) => f.path)).toEqual(['.cursor/rules/blueprint.mdc', '.cursor/rules/db.mdc', '.cursor/rules/web.mdc']);
    const named = 'id: "6f1c7a3e-0d2b-4c5e-9a8f-123456789abc"\nslug: "shop"\nversion: 3\n';
    expect(files[1]!.content.startsWith(`---\ndescription: "Tables"\nalwaysApply: false\n${named}---\n`)).toBe(true);
    expect(files[2]!.content.startsWith(`---\ndescription: "Web"\nglobs: ["src/web/**/*.tsx"]\nalwaysApply: false\n${named}---\n`)).toBe(true);
  });

  it.each([
    ['an unclosed front matter', '---\nid: "x"\n', 1],
    ['an unclosed fence', '---\nid: "x"\n---\n## Configuration\n\n```json\n{}\n', 6],
    ['a configuration that is not JSON', '## Configuration\n\n```json\n{nope}\n```\n', 2],
    ['a field that is not JSON', '## Module `db`\n- name: Database\n', 2],
    ['a step outside a module', '### Step 1: `x`\n', 1],
  ])('names the file and line of %s', (_what, content, line) => {
    expect(() => parseImport('agents-md', [{ path: 'AGENTS.md', content }])).toThrow(expect.objectContaining({ file: 'AGENTS.md', line }));
    expect(() => parseImport('agents-md', [{ path: 'AGENTS.md', content }])).toThrow(FileError);
  });
});
