import { createBlueprint } from '../fixtures/blueprints';
import { shopSpec } from '../fixtures/plans';
import { sql } from '../fixtures/architectures';
import { BlueprintExportDocument, ImportBlueprintDocument } from '../generated/graphql';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Export and import over REST, GraphQL and MCP (docs/transfer.md): the round trip per format per
 * surface, provenance and its privacy rule, and files that cannot be read.
 */
let server: TestServer;
let alice: string;
let bob: string;
let mcp: McpTestClient;
let source: any;

const formats = ['agents-md', 'claude-md', 'cursor-rules', 'json'] as const;
const gqlFormat = (f: string) => f.toUpperCase().replace('-', '_') as any;
const planOf = (b: any) => ({ modules: b.modules, steps: b.steps, configuration: b.configuration, design_system: b.design_system });

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.rest.agentToken('alice');
  bob = await server.rest.agentToken('bob');
  mcp = await McpTestClient.connect(server.url, bob);
  source = await createBlueprint(server.rest, alice, {
    ...shopSpec,
    name: 'Shop — ünïcode 🚀',
    steps: [
      {
        key: 'schema',
        module_key: 'db',
        title: 'Schema',
        instructions: 'Run:\n\n```sql\ncreate table t ();\n```\n---\nid: not front matter\n---',
        acceptance: ['applies'],
      },
      { key: 'endpoints', module_key: 'api', title: 'Endpoints', instructions: '## Module `fake`\n- title: "nope"', acceptance: [] },
      { key: 'pages', module_key: 'web', title: 'Pages', instructions: '````\n```\n````', acceptance: ['renders', 'a11y'] },
    ],
  });
});
afterAll(async () => {
  await mcp.close();
  await server.close();
});

/** Exports over one surface as bob (a reader of the public source). */
async function exportVia(surface: string, format: string): Promise<any[]> {
  if (surface === 'rest') {
    const res = await server.rest.get(`/api/blueprints/${source.id}/export?format=${format}`, { token: bob });
    expect(res.status).toBe(200);
    expect(res.body.format).toBe(format);
    return res.body.files;
  }
  if (surface === 'graphql') {
    const data = await server.gql.ok(BlueprintExportDocument, { id: source.id, format: gqlFormat(format) }, bob);
    return data.blueprint!.export.files;
  }
  return (await mcp.ok('blueprint_export', { blueprint_id: source.id, format })).files;
}

/** Imports over one surface as bob; the new blueprint's id. */
async function importVia(surface: string, format: string, files: any[], extra: Record<string, unknown> = {}): Promise<string> {
  if (surface === 'rest') {
    const res = await server.rest.post('/api/blueprints/import', { token: bob, body: { format, files, ...extra } });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  if (surface === 'graphql') {
    const data = await server.gql.ok(ImportBlueprintDocument, { input: { format: gqlFormat(format), files, ...extra } as any }, bob);
    return data.importBlueprint.id;
  }
  return (await mcp.ok('blueprint_import', { format, files, ...extra })).id;
}

describe('the round trip', () => {
  const cases = ['rest', 'graphql', 'mcp'].flatMap((surface) => formats.map((format) => [surface, format] as const));
  it.each(cases)('over %s in %s gives the same plan, as a fork of the source with nothing changed', async (surface, format) => {
    const files = await exportVia(surface, format);
    const id = await importVia(surface, format, files);
    const back = (await server.rest.get(`/api/blueprints/${id}`, { token: bob })).body;
    expect(planOf(back)).toEqual(planOf(source));
    expect(back).toMatchObject({ name: source.name, visibility: 'private', forked_from: { id: source.id } });
    const [v1] = await sql(server.databaseUrl, 'select cause, changes from blueprint_version where blueprint_id = $1', [id]);
    expect(v1).toMatchObject({ cause: 'import', changes: { imported_from: format, forked_from: source.id, parent_version: 1, is_empty: true } });
  });

  it('writes the files a coding agent reads: AGENTS.md, CLAUDE.md, one .mdc per module plus an index, blueprint.json', async () => {
    const paths = await Promise.all(formats.map(async (f) => (await exportVia('rest', f)).map((x) => x.path)));
    expect(paths).toEqual([
      ['AGENTS.md'],
      ['CLAUDE.md'],
      ['.cursor/rules/blueprint.mdc', '.cursor/rules/db.mdc', '.cursor/rules/api.mdc', '.cursor/rules/web.mdc'],
      ['blueprint.json'],
    ]);
    const [agents] = await exportVia('rest', 'agents-md');
    expect(agents.content.startsWith(`---\nid: "${source.id}"\nslug: "${source.slug}"\nversion: 1\n`)).toBe(true);
    // Every Markdown file opens with front matter naming the blueprint (section 16), each Cursor rule too.
    const markdown = (await Promise.all(formats.filter((f) => f !== 'json').map((f) => exportVia('rest', f)))).flat();
    for (const file of markdown) {
      const front = /^---\n([\s\S]*?)\n---\n/.exec(file.content)?.[1]?.split('\n') ?? [];
      expect({ path: file.path, named: ['id', 'slug', 'version'].map((k) => front.find((l) => l.startsWith(`${k}: `))) }).toEqual({
        path: file.path,
        named: [`id: "${source.id}"`, `slug: "${source.slug}"`, 'version: 1'],
      });
    }
  });
});

describe('provenance', () => {
  it("says in the first version's changes what the edited files changed, and links the lineage", async () => {
    const [file] = await exportVia('rest', 'agents-md');
    const edited = file.content.replace('- title: "Pages"', '- title: "Pages, edited"');
    const id = await importVia('rest', 'agents-md', [{ ...file, content: edited }], { name: 'Edited shop', visibility: 'public' });
    const [v1] = await sql(server.databaseUrl, 'select changes from blueprint_version where blueprint_id = $1', [id]);
    expect(v1.changes.steps).toEqual({ added: [], removed: [], changed: [{ key: 'pages', fields: ['title'] }], reordered: false });
    const lineage = await server.rest.get(`/api/blueprints/${source.id}/lineage`, { token: alice });
    expect(lineage.body.children.map((c: any) => c.blueprint.id)).toContain(id);
  });

  it.each(['rest', 'graphql', 'mcp'])(
    'over %s, reveals nothing about a source the importer may not read: no link, no fork, the same answer as an unknown id',
    async (surface) => {
      const secret = await createBlueprint(server.rest, alice, { ...shopSpec, name: `Secret shop ${surface}`, visibility: 'private' });
      const [file] = (await server.rest.get(`/api/blueprints/${secret.id}/export?format=agents-md`, { token: alice })).body.files;
      expect((await server.rest.get(`/api/blueprints/${secret.id}/export?format=agents-md`, { token: bob })).status).toBe(404);
      const unknown = file.content.replaceAll(secret.id, '6f1c7a3e-0d2b-4c5e-9a8f-123456789abc').replaceAll(secret.slug, 'no-such-slug');
      const answers = [];
      for (const content of [file.content, unknown]) {
        const id = await importVia(surface, 'agents-md', [{ path: 'AGENTS.md', content }], { name: 'Mine' });
        const read = (await server.rest.get(`/api/blueprints/${id}`, { token: bob })).body;
        const [v1] = await sql(server.databaseUrl, 'select changes from blueprint_version where blueprint_id = $1', [id]);
        answers.push({ forked_from: read.forked_from, changes: v1.changes });
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0]).toEqual({ forked_from: null, changes: { imported_from: 'agents-md', files: ['AGENTS.md'] } });
      const lineage = await server.rest.get(`/api/blueprints/${secret.id}/lineage`, { token: alice });
      expect(lineage.body.children).toEqual([]);
    },
  );

  it('made public from its own private source, tells a stranger nothing the files did not say: no id, name or diff', async () => {
    const secret = await createBlueprint(server.rest, alice, {
      ...shopSpec,
      name: 'Zephyr vault',
      visibility: 'private',
      modules: [...shopSpec.modules!, { key: 'vault-ledger', name: 'Ledger', kind: 'data', summary: 'Quartz', depends_on: [] }],
    });
    const [file] = (await server.rest.get(`/api/blueprints/${secret.id}/export?format=agents-md`, { token: alice })).body.files;
    // The files drop the name line and the ledger module: the import's name would default to the source's,
    // and a diff against the source would list the ledger as removed.
    const content = file.content
      .replace(/^name: .*\n/m, '')
      .replace(/^# .*\n/m, '')
      .replace(/^## Module `vault-ledger`[\s\S]*?(?=^## |(?![\s\S]))/m, '');
    expect(content).not.toContain('vault-ledger');
    expect(content).not.toContain('Zephyr');
    const res = await server.rest.post('/api/blueprints/import', {
      token: alice,
      body: { format: 'agents-md', files: [{ path: 'AGENTS.md', content }], visibility: 'public' },
    });
    expect(res.status).toBe(201);
    expect(res.body.modules.map((m: any) => m.key)).not.toContain('vault-ledger');
    const reads = await Promise.all([
      server.rest.get(`/api/blueprints/${res.body.id}`, { token: bob }),
      server.rest.get(`/api/blueprints/${res.body.id}/versions`, { token: bob }),
      server.rest.get(`/api/blueprints/${res.body.id}/lineage`, { token: bob }),
      mcp.call('version_list', { blueprint_id: res.body.id }),
    ]);
    const seen = JSON.stringify([
      ...reads.map((r: any) => r.body),
      await sql(server.databaseUrl, 'select changes from blueprint_version where blueprint_id = $1', [res.body.id]),
    ]);
    expect(reads[0]!.body).toMatchObject({ visibility: 'public', name: 'Imported blueprint', forked_from: null });
    for (const trace of [secret.id, secret.slug, 'Zephyr', 'vault-ledger', 'Quartz'])
      expect({ trace, found: seen.includes(trace) }).toEqual({ trace, found: false });
    // Its owner still finds the family in lineage, which checks access on every read.
    const lineage = await server.rest.get(`/api/blueprints/${secret.id}/lineage`, { token: alice });
    expect(lineage.body.children.map((c: any) => c.blueprint.id)).toContain(res.body.id);
  });
});

describe('bad input', () => {
  it('answers a file that cannot be read with 400 naming the file and line (REST, MCP, GraphQL), and writes nothing', async () => {
    const before = await sql(server.databaseUrl, 'select count(*)::int as n from blueprint');
    const files = [
      { path: '.cursor/rules/blueprint.mdc', content: '---\nid: "x"\n---\n## Configuration\n\n```json\n{}\n```\n' },
      { path: '.cursor/rules/db.mdc', content: '---\nalwaysApply: false\n---\n## Module `db`\n\n- name: Database\n' },
    ];
    const res = await server.rest.post('/api/blueprints/import', { token: bob, body: { format: 'cursor-rules', files } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('.cursor/rules/db.mdc line 6'),
      details: { file: '.cursor/rules/db.mdc', line: 6, issues: [{ path: 'files/1/content' }] },
    });
    const viaMcp = await mcp.call('blueprint_import', { format: 'cursor-rules', files });
    expect(viaMcp).toMatchObject({ isError: true, body: { error: { code: 'VALIDATION_FAILED', details: { file: '.cursor/rules/db.mdc', line: 6 } } } });
    const viaGraphql = await server.gql.request(ImportBlueprintDocument, { input: { format: 'CURSOR_RULES' as any, files } }, bob);
    expect(viaGraphql.data).toBeFalsy();
    expect(viaGraphql.errors?.[0]).toMatchObject({
      message: expect.stringContaining('.cursor/rules/db.mdc line 6'),
      extensions: { code: 'VALIDATION_FAILED', details: { file: '.cursor/rules/db.mdc', line: 6 } },
    });
    expect(await sql(server.databaseUrl, 'select count(*)::int as n from blueprint')).toEqual(before);
  });

  it.each([
    [{ format: 'docx', files: [{ path: 'a', content: '' }] }, 'format'],
    [{ format: 'agents-md', files: [] }, 'files'],
    [
      {
        format: 'agents-md',
        files: [
          { path: 'A.md', content: '' },
          { path: 'B.md', content: '' },
        ],
      },
      'files',
    ],
    [{ format: 'json', files: [{ path: 'blueprint.json', content: '{"modules": [{"key": "Bad Key"}]}' }] }, 'modules/0'],
  ])('rejects %j with 400 naming %s', async (body, path) => {
    const res = await server.rest.post('/api/blueprints/import', { token: bob, body });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toContain(path);
  });

  it('rejects an unknown export format with 400 naming format', async () => {
    const res = await server.rest.get(`/api/blueprints/${source.id}/export?format=docx`, { token: bob });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('format');
  });
});
