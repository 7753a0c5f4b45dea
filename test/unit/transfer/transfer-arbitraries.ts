/**
 * Plans whose text breaks naive formats (fences, front matter, our own headings and fields, unicode, blank
 * lines), for the export/import round trip: `arbWildPlan` for the pure format functions, `arbServicePlan`
 * for plans the service accepts too (non-empty names and titles, lowercase kinds, no NUL, which PostgreSQL
 * text cannot hold).
 */
import fc from 'fast-check';
import type { Plan } from '../../../src/plans/plan';
import { arbPlan } from '../plans/plan-arbitraries';

/** Text that breaks naive formats: fences, front matter, our own headings and fields, unicode, blank lines. */
export const tricky = fc.constantFrom(
  '```ts\nconst a = `x`;\n```',
  '````\n```\n````',
  '---\nid: "00000000-0000-0000-0000-000000000000"\n---',
  '## Module `api`',
  '### Step 1: `x`',
  '- title: "not a field"',
  'Instructions:',
  '## Configuration',
  '',
  '\n\n',
  'Ünïcödé — 漢字 🚀 \u200b',
  '  indented\ttabs  ',
  '"quotes" and \\backslashes\\',
);
export const text = fc.array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 12 })), { maxLength: 4 }).map((parts) => parts.join('\n'));

export const arbWildPlan: fc.Arbitrary<Plan> = arbPlan.chain((plan) =>
  fc
    .record({
      modules: fc.tuple(...plan.modules.map((m) => fc.record({ name: text, summary: text, kind: text }).map((t) => ({ ...m, ...t })))),
      steps: fc.tuple(
        ...plan.steps.map((s) => fc.record({ title: text, instructions: text, acceptance: fc.array(text, { maxLength: 3 }) }).map((t) => ({ ...s, ...t }))),
      ),
      configuration: fc.dictionary(fc.string({ maxLength: 6 }), text, { noNullPrototype: true, maxKeys: 3 }),
    })
    .map(({ modules, steps, configuration }) => ({ ...plan, modules, steps, configuration: { ...plan.configuration, ...configuration } })),
);

const noNul = (t: string) => t.replaceAll(String.fromCharCode(0), '');
const filled = text.map((t) => noNul(t).trim() || 'x');
const loose = text.map(noNul);

export const arbServicePlan: fc.Arbitrary<Plan> = arbPlan.chain((plan) =>
  fc
    .record({
      modules: fc.tuple(...plan.modules.map((m) => fc.record({ name: filled, summary: loose }).map((t) => ({ ...m, ...t })))),
      steps: fc.tuple(
        ...plan.steps.map((s) =>
          fc.record({ title: filled, instructions: loose, acceptance: fc.array(filled, { maxLength: 3 }) }).map((t) => ({ ...s, ...t })),
        ),
      ),
      configuration: fc.dictionary(fc.constantFrom('notes', 'setup', 'x.y', 'ünï'), loose, { noNullPrototype: true, maxKeys: 3 }),
    })
    .map(({ modules, steps, configuration }) => ({ ...plan, modules, steps, configuration: { ...plan.configuration, ...configuration } })),
);
