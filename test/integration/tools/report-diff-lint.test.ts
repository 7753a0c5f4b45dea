import { OperationDocument } from '../../generated/graphql';
import { createBlueprint } from '../../fixtures/blueprints';
import { rowCount, runTool, startTool, submit } from '../../fixtures/tool-driver';
import { startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let owner: string;
let other: string;

beforeAll(async () => {
  server = await startTestServer();
  [owner, other] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('other')]);
});
afterAll(() => server.close());

describe('difference', () => {
  it('reports the structured diff of two blueprints computed by the server, with the agent summary', async () => {
    const a = await createBlueprint(server.rest, owner, { name: 'Before' });
    const b = await createBlueprint(server.rest, other, {
      name: 'After',
      modules: [
        { key: 'api', name: 'API', kind: 'backend', summary: 'REST API', depends_on: ['db', 'cache'] },
        { key: 'db', name: 'Database', kind: 'data', summary: 'PostgreSQL schema', depends_on: [] },
        { key: 'cache', name: 'Cache', kind: 'infra', depends_on: [] },
      ],
      steps: [
        { key: 'schema', module_key: 'db', title: 'Design the schema', instructions: 'Write migrations', acceptance: ['migrations apply'] },
        { key: 'cache-setup', module_key: 'cache', acceptance: ['cache answers'] },
        { key: 'endpoints', module_key: 'api', title: 'Build endpoints', instructions: 'CRUD routes', acceptance: ['tests pass', 'p95 under 100 ms'] },
      ],
      configuration: { runtime: 'node', database: 'postgres' },
      design_system: { colors: { primary: '#000000' } },
    });
    const done = await runTool(server.rest, owner, { tool_type: 'difference', source_blueprint_ids: [a.id, b.id] }, [
      { summary: 'The second drops the web app and adds a cache.', highlights: ['no web'] },
    ]);
    expect(done).toMatchObject({ status: 'completed', done: true, token: null, total_steps: 1 });
    expect(done.result.report).toEqual({
      from: { id: a.id, slug: a.slug, name: 'Before' },
      to: { id: b.id, slug: b.slug, name: 'After' },
      diff: {
        sections_touched: ['modules', 'steps', 'configuration', 'design_system'],
        modules: { added: ['cache'], removed: ['web'], changed: [{ key: 'api', fields: ['summary', 'depends_on'] }] },
        steps: { added: ['cache-setup'], removed: ['pages'], changed: [{ key: 'endpoints', fields: ['acceptance'] }], reordered: false },
        configuration: { added: ['database'], removed: [], changed: [] },
        design_system: { added: [], removed: [], changed: ['colors.primary'] },
        is_empty: false,
      },
      summary: 'The second drops the web app and adds a cache.',
      highlights: ['no web'],
    });
    // The stored result is what the status endpoint and GraphQL return.
    const status = await server.rest.get(`/api/tools/operations/${done.operation_id}`, { token: owner });
    expect(status.body).toMatchObject({ status: 'completed', done: true, result: done.result });
    expect(status.body.token).toBeUndefined();
    const gql = await server.gql.ok(OperationDocument, { id: done.operation_id }, owner);
    expect(gql.operation).toMatchObject({ status: 'COMPLETED', done: true, result: done.result });
  });

  it('rejects one source, and a private source of someone else as not found, creating no operation', async () => {
    const a = await createBlueprint(server.rest, owner, { name: 'Mine' });
    const hidden = await createBlueprint(server.rest, other, { name: 'Hidden', visibility: 'private' });
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const one = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'difference', source_blueprint_ids: [a.id] } });
    expect(one.status).toBe(400);
    expect(one.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'source_blueprint_ids' }] } });
    const priv = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'difference', source_blueprint_ids: [a.id, hidden.id] } });
    expect(priv.status).toBe(404);
    expect(priv.body.error.code).toBe('NOT_FOUND');
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });
});

describe('lint', () => {
  const lintSpec = {
    name: 'Sloppy plan',
    modules: [
      { key: 'api', kind: 'backend', depends_on: ['db'] },
      { key: 'db', kind: 'data', depends_on: [] },
      { key: 'docs', kind: 'service', depends_on: [] },
    ],
    steps: [
      { key: 'endpoints', module_key: 'api', acceptance: [] },
      { key: 'schema', module_key: 'db', acceptance: ['migrations apply', 'migrations apply'] },
    ],
  };

  it('reports empty acceptance, orphan modules, steps out of dependency order and repeated checks, exactly', async () => {
    const bp = await createBlueprint(server.rest, owner, lintSpec);
    const op = await startTool(server.rest, owner, { tool_type: 'lint', source_blueprint_ids: [bp.id] });
    expect(op.prompt).toContain('empty-acceptance');
    const res = await submit(server.rest, owner, op, {
      summary: 'Needs checks.',
      suggestions: [{ finding: 1, suggestion: 'Add a check that the endpoints answer 200.' }],
    });
    expect(res.status).toBe(200);
    const report = res.body.result.report;
    expect(report.clean).toBe(false);
    expect(report.counts).toEqual({ error: 0, warning: 3, info: 1 });
    expect(report.findings.map((f: any) => [f.severity, f.code, f.path, f.key, f.suggestion])).toEqual([
      ['warning', 'module-without-steps', 'modules/2', 'docs', null],
      ['warning', 'empty-acceptance', 'steps/0/acceptance', 'endpoints', 'Add a check that the endpoints answer 200.'],
      ['warning', 'step-before-dependency', 'steps/0', 'endpoints', null],
      ['info', 'duplicate-acceptance', 'steps/1/acceptance/1', 'schema', null],
    ]);
    expect(report.findings[2].message).toBe('step "endpoints" of module "api" runs before step "schema" of module "db", which "api" depends on');
    expect(report.summary).toBe('Needs checks.');
  });

  it('reports a clean plan as clean', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Tidy' });
    const done = await runTool(server.rest, owner, { tool_type: 'lint', source_blueprint_ids: [bp.id] }, [{ summary: 'Fine.' }]);
    expect(done.result.report).toMatchObject({ clean: true, counts: { error: 0, warning: 0, info: 0 }, findings: [] });
  });

  it('rejects a suggestion for a finding that does not exist, leaving the operation at its step', async () => {
    const bp = await createBlueprint(server.rest, owner, lintSpec);
    const op = await startTool(server.rest, owner, { tool_type: 'lint', source_blueprint_ids: [bp.id] });
    const bad = await submit(server.rest, owner, op, { summary: 'x', suggestions: [{ finding: 4, suggestion: 'y' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'submission/suggestions/0/finding', message: 'must be below 4' }]);
    const status = await server.rest.get(`/api/tools/operations/${op.operation_id}`, { token: owner });
    expect(status.body).toMatchObject({ status: 'active', step: 1, result: null });
    expect((await submit(server.rest, owner, op, { summary: 'x' })).status).toBe(200);
  });
});
