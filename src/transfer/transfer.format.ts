/**
 * A blueprint as the instruction files coding agents read (docs/transfer.md), and back: pure functions.
 *
 * Every Markdown file is readable prose and exact data at once: front matter of `key: value` lines (values
 * are JSON, so any text survives; plain YAML scalars are read as text), one `## Module` section per module
 * with `- field: <JSON>` lines, one `### Step N` section per step (N = run order) and every multi-line text
 * (instructions, configuration, design system) in a fence longer than any backtick run inside it, so code
 * fences, unicode and lines that look like front matter come back unchanged.
 */
import { moduleToWire, stepToWire, type Plan, type PlanModule, type PlanStep } from '../plans/plan';

export const exportFormats = ['agents-md', 'claude-md', 'cursor-rules', 'json'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export interface ExportFile {
  path: string;
  content: string;
}

/** What a file says about the blueprint it came from. */
export interface Identity {
  id: string | null;
  slug: string | null;
  version: number | null;
  name: string | null;
  description: string | null;
  tags: string[] | null;
}

export interface Exported extends Identity {
  plan: Plan;
}

/** A file that cannot be read: its path and 1-based line. */
export class FileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file} line ${line}: ${reason}`);
  }
}

const json = (v: unknown) => JSON.stringify(v);

/** A backtick fence longer than any run of backticks in `text` (at least three). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function fenced(text: string, info: string): string[] {
  const fence = fenceFor(text);
  return [fence + info, ...text.split('\n'), fence];
}

function frontMatter(fields: Record<string, unknown>): string[] {
  return ['---', ...Object.entries(fields).map(([k, v]) => `${k}: ${json(v)}`), '---', ''];
}

function identityFields(b: Exported): Record<string, unknown> {
  return { id: b.id, slug: b.slug, version: b.version, name: b.name, description: b.description, tags: b.tags };
}

function sectionsOf(b: Exported): string[] {
  return [
    '## Configuration',
    '',
    ...fenced(JSON.stringify(b.plan.configuration, null, 2), 'json'),
    '',
    '## Design system',
    '',
    ...fenced(JSON.stringify(b.plan.designSystem, null, 2), 'json'),
    '',
  ];
}

function moduleLines(b: Exported, m: PlanModule): string[] {
  const lines = [
    `## Module \`${m.key}\``,
    '',
    `- name: ${json(m.name)}`,
    `- kind: ${json(m.kind)}`,
    `- summary: ${json(m.summary)}`,
    `- depends_on: ${json(m.dependsOn)}`,
    '',
  ];
  b.plan.steps.forEach((s, i) => {
    if (s.moduleKey !== m.key) return;
    lines.push(
      `### Step ${i + 1}: \`${s.key}\``,
      '',
      `- title: ${json(s.title)}`,
      `- acceptance: ${json(s.acceptance)}`,
      '',
      'Instructions:',
      '',
      ...fenced(s.instructions, 'markdown'),
      '',
    );
  });
  return lines;
}

const intro = (b: Exported, who: string) => [
  `# ${(b.name ?? 'Blueprint').replace(/\s+/g, ' ')}`,
  '',
  `${who} build plan from Blueprint Workshop: carry out the steps in their run order (Step 1, 2, ...), each in its module, until every acceptance check holds. The fields and fenced blocks below are exact data; keep their shape when editing so the file can be imported back.`,
  '',
];

/** The files of one export. */
export function renderExport(format: ExportFormat, b: Exported): ExportFile[] {
  if (format === 'json') {
    const body = {
      ...identityFields(b),
      modules: b.plan.modules.map(moduleToWire),
      steps: b.plan.steps.map(stepToWire),
      configuration: b.plan.configuration,
      design_system: b.plan.designSystem,
    };
    return [{ path: 'blueprint.json', content: JSON.stringify(body, null, 2) + '\n' }];
  }
  if (format === 'cursor-rules') {
    const index = [
      ...frontMatter({ description: `Build plan: ${b.name ?? ''}`, alwaysApply: true, ...identityFields(b) }),
      ...intro(b, 'Cursor rules for a'),
      `- modules: ${json(b.plan.modules.map((m) => m.key))}`,
      '',
      ...sectionsOf(b),
    ];
    const globs = (b.plan.configuration.globs ?? {}) as Record<string, unknown>;
    const modules = b.plan.modules.map((m) => {
      const g = globs[m.key];
      const fm: Record<string, unknown> = { description: m.summary || m.name };
      if (typeof g === 'string' || (Array.isArray(g) && g.every((x) => typeof x === 'string'))) fm.globs = g;
      fm.alwaysApply = false;
      // Every Markdown file names its blueprint (section 16); Cursor reads the three keys above and ignores these.
      Object.assign(fm, { id: b.id, slug: b.slug, version: b.version });
      return { path: `.cursor/rules/${m.key}.mdc`, content: [...frontMatter(fm), ...moduleLines(b, m)].join('\n') };
    });
    return [{ path: '.cursor/rules/blueprint.mdc', content: index.join('\n') }, ...modules];
  }
  const [path, who] = format === 'agents-md' ? ['AGENTS.md', 'A'] : ['CLAUDE.md', 'Claude Code: a'];
  const lines = [...frontMatter(identityFields(b)), ...intro(b, who), ...sectionsOf(b), ...b.plan.modules.flatMap((m) => moduleLines(b, m))];
  return [{ path, content: lines.join('\n') }];
}

/** What one Markdown file holds, with the lines things were found on. */
interface ParsedFile {
  front: Record<string, unknown>;
  configuration?: Record<string, unknown>;
  designSystem?: Record<string, unknown>;
  moduleOrder?: string[];
  modules: PlanModule[];
  steps: Array<{ n: number; step: PlanStep }>;
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw.trim();
  }
}

/** Reads one Markdown file of any of the three Markdown formats. */
export function parseMarkdownFile(path: string, content: string): ParsedFile {
  const lines = content.split('\n');
  const fail = (i: number, reason: string): never => {
    throw new FileError(path, i + 1, reason);
  };
  const out: ParsedFile = { front: {}, modules: [], steps: [] };
  let i = 0;
  if (lines[0]?.trim() === '---') {
    i = 1;
    for (; i < lines.length && lines[i]!.trim() !== '---'; i++) {
      const m = /^([A-Za-z_][\w-]*):\s?(.*)$/s.exec(lines[i]!);
      if (!m) {
        if (lines[i]!.trim() === '') continue;
        fail(i, 'front matter lines are "key: value"');
      }
      out.front[m![1]!] = parseValue(m![2]!);
    }
    if (i >= lines.length) fail(0, 'the front matter is not closed by a "---" line');
    i++;
  }
  const readFence = (at: number): { text: string; next: number } => {
    let j = at;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    const open = /^(`{3,})[^`]*$/.exec(lines[j] ?? '');
    if (!open) fail(Math.min(j, lines.length - 1), 'a fenced block (```) was expected here');
    const fence = open![1]!;
    const body: string[] = [];
    for (let k = j + 1; k < lines.length; k++) {
      if (lines[k] === fence) return { text: body.join('\n'), next: k + 1 };
      body.push(lines[k]!);
    }
    return fail(j, `the fenced block opened here is not closed by ${fence}`);
  };
  const readJsonObject = (at: number, what: string): { value: Record<string, unknown>; next: number } => {
    const { text, next } = readFence(at);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      fail(at, `the ${what} is not valid JSON (${(e as Error).message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(at, `the ${what} must be a JSON object`);
    return { value: value as Record<string, unknown>, next };
  };
  let module: PlanModule | null = null;
  let step: PlanStep | null = null;
  while (i < lines.length) {
    const line = lines[i]!;
    let m: RegExpExecArray | null;
    if (line === '## Configuration') {
      const r = readJsonObject(i + 1, 'configuration');
      out.configuration = r.value;
      i = r.next;
      module = step = null;
    } else if (line === '## Design system') {
      const r = readJsonObject(i + 1, 'design system');
      out.designSystem = r.value;
      i = r.next;
      module = step = null;
    } else if ((m = /^## Module `([^`]+)`\s*$/.exec(line))) {
      module = { key: m[1]!, name: '', summary: '', kind: '', dependsOn: [] };
      step = null;
      out.modules.push(module);
      i++;
    } else if ((m = /^### Step (\d+): `([^`]+)`\s*$/.exec(line))) {
      if (!module) fail(i, 'a step must follow its "## Module" heading');
      step = { key: m[2]!, moduleKey: module!.key, title: '', instructions: '', acceptance: [] };
      out.steps.push({ n: Number(m[1]), step });
      i++;
    } else if (line === 'Instructions:') {
      if (!step) fail(i, '"Instructions:" must follow a "### Step" heading');
      const r = readFence(i + 1);
      step!.instructions = r.text;
      i = r.next;
    } else if ((m = /^- ([a-z_]+): (.*)$/s.exec(line))) {
      const [field, raw] = [m[1]!, m[2]!];
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        fail(i, `the value of ${field} is not valid JSON`);
      }
      const text = () => (typeof value === 'string' ? value : fail(i, `${field} must be a JSON string`));
      const list = () =>
        Array.isArray(value) && value.every((x) => typeof x === 'string') ? (value as string[]) : fail(i, `${field} must be a JSON array of strings`);
      if (field === 'modules' && !module) out.moduleOrder = list();
      else if (step && (field === 'title' || field === 'acceptance')) {
        if (field === 'title') step.title = text();
        else step.acceptance = list();
      } else if (module && !step && ['name', 'kind', 'summary', 'depends_on'].includes(field)) {
        if (field === 'depends_on') module.dependsOn = list();
        else module[field as 'name' | 'kind' | 'summary'] = text();
      } else fail(i, `"- ${field}:" is not a field here`);
      i++;
    } else i++; // prose: headings, notes and blank lines are for people
  }
  return out;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

function identityOf(front: Record<string, unknown>): Identity {
  const tags = Array.isArray(front.tags) && front.tags.every((t) => typeof t === 'string') ? (front.tags as string[]) : null;
  return {
    id: str(front.id),
    slug: str(front.slug),
    version: typeof front.version === 'number' ? front.version : null,
    name: str(front.name),
    description: str(front.description),
    tags,
  };
}

/** The files of one import, read back into a plan and what they say about their source. */
export function parseImport(format: ExportFormat, files: ExportFile[]): Exported {
  if (format === 'json') {
    const file = files[0]!;
    let body: any;
    try {
      body = JSON.parse(file.content);
    } catch (e) {
      const at = /position (\d+)/.exec((e as Error).message);
      const line = at ? file.content.slice(0, Number(at[1])).split('\n').length : 1;
      throw new FileError(file.path, line, `not valid JSON (${(e as Error).message})`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new FileError(file.path, 1, 'must hold a JSON object');
    // Read tolerantly (any entry, any field type): the service checks every module and step against the
    // plan schema next, so a wrong shape is a 400 naming its path rather than an error here.
    const arr = (v: unknown) => (Array.isArray(v) ? v : []);
    const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
    return {
      ...identityOf(body),
      plan: {
        modules: arr(body.modules).map((m: any) => ({ key: m?.key, name: m?.name, summary: m?.summary ?? '', kind: m?.kind, dependsOn: m?.depends_on ?? [] })),
        steps: arr(body.steps).map((s: any) => ({
          key: s?.key,
          moduleKey: s?.module_key,
          title: s?.title,
          instructions: s?.instructions,
          acceptance: s?.acceptance ?? [],
        })),
        configuration: obj(body.configuration),
        designSystem: obj(body.design_system),
      },
    };
  }
  const parsed = files.map((f) => ({ file: f, parsed: parseMarkdownFile(f.path, f.content) }));
  const main = parsed.find((p) => p.parsed.configuration !== undefined) ?? parsed[0]!;
  const modules = parsed.flatMap((p) => p.parsed.modules);
  const order = main.parsed.moduleOrder;
  if (order) modules.sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
  const steps = parsed.flatMap((p) => p.parsed.steps).sort((a, b) => a.n - b.n);
  return {
    ...identityOf(main.parsed.front),
    plan: { modules, steps: steps.map((s) => s.step), configuration: main.parsed.configuration ?? {}, designSystem: main.parsed.designSystem ?? {} },
  };
}
