import { createBlueprint, fork } from '../../fixtures/blueprints';
import { layeredSpec } from '../../fixtures/plans';
import { rowCount, runTool, startTool, submit } from '../../fixtures/tool-driver';
import { startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let owner: string;
let other: string;
let layered: any;

beforeAll(async () => {
  server = await startTestServer();
  [owner, other] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('other')]);
  layered = await createBlueprint(server.rest, owner, layeredSpec);
});
afterAll(() => server.close());

describe('holographic_doc', () => {
  it('documents the blueprint at the ecosystem, architecture and module levels in three steps', async () => {
    const child = await fork(server.rest, other, layered.id);
    const modules = layeredSpec.modules!.map((m) => ({ key: m.key, doc: `All about ${m.key}.` }));
    const done = await runTool(server.rest, owner, { tool_type: 'holographic_doc', source_blueprint_ids: [layered.id] }, [
      { ecosystem: 'A shop with one fork.' },
      { architecture: 'Three levels.' },
      { modules },
    ]);
    expect(done.total_steps).toBe(3);
    const { levels } = done.result.report;
    expect(levels.ecosystem.text).toBe('A shop with one fork.');
    expect(levels.ecosystem.nodes).toEqual([
      { id: layered.id, slug: layered.slug, name: 'Layered shop', relation: 'self', link: null, composition: { backend: 2, data: 1, frontend: 1, infra: 1 } },
      { id: child.id, slug: child.slug, name: 'Layered shop', relation: 'child', link: 'fork', composition: { backend: 2, data: 1, frontend: 1, infra: 1 } },
    ]);
    expect(levels.architecture).toMatchObject({
      text: 'Three levels.',
      levels: [['cache', 'db'], ['api', 'worker'], ['web']],
      critical_path: ['db', 'api', 'web'],
      edges: [
        { from: 'api', to: 'db' },
        { from: 'api', to: 'cache' },
        { from: 'worker', to: 'db' },
        { from: 'web', to: 'api' },
      ],
    });
    const api = levels.module.modules.find((m: any) => m.key === 'api');
    expect(api).toMatchObject({
      doc: 'All about api.',
      depends_on: ['db', 'cache'],
      dependents: ['web'],
      steps: [
        { key: 'endpoints', title: 'endpoints', acceptance: 1 },
        { key: 'auth', title: 'auth', acceptance: 1 },
      ],
    });
  });

  it('rejects module docs that miss a module, keeping the operation at step 3', async () => {
    let op = await startTool(server.rest, owner, { tool_type: 'holographic_doc', source_blueprint_ids: [layered.id] });
    op = (await submit(server.rest, owner, op, { ecosystem: 'e' })).body;
    op = (await submit(server.rest, owner, op, { architecture: 'a' })).body;
    const bad = await submit(server.rest, owner, op, { modules: [{ key: 'db', doc: 'd' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'submission/modules', message: 'misses cache, api, worker, web' }]);
    expect((await server.rest.get(`/api/tools/operations/${op.operation_id}`, { token: owner })).body).toMatchObject({
      status: 'active',
      step: 3,
      result: null,
    });
  });
});

describe('topological_search', () => {
  let seed: any;
  let twin: any;
  let partial: any;

  beforeAll(async () => {
    seed = await createBlueprint(server.rest, owner, { name: 'Seed' });
    twin = await createBlueprint(server.rest, other, { name: 'Twin' });
    partial = await createBlueprint(server.rest, other, {
      name: 'Partial',
      modules: [
        { key: 'api', kind: 'backend', depends_on: ['db'] },
        { key: 'db', kind: 'data', depends_on: [] },
      ],
      steps: [{ key: 'schema', module_key: 'db' }],
    });
    await createBlueprint(server.rest, other, { name: 'Hidden twin', visibility: 'private' });
    await createBlueprint(server.rest, other, {
      name: 'Unrelated',
      modules: [{ key: 'cli', kind: 'tool', depends_on: [] }],
      steps: [{ key: 'parse', module_key: 'cli' }],
    });
  });

  it('ranks readable blueprints by module-graph similarity to the source, never showing private ones', async () => {
    const done = await runTool(server.rest, owner, { tool_type: 'topological_search', source_blueprint_ids: [seed.id], params: { limit: 5 } }, [{}]);
    const report = done.result.report;
    expect(report.query).toEqual({ blueprint: { id: seed.id, slug: seed.slug, name: 'Seed' }, modules: 3 });
    // Ties (the layered shop and its fork) go to the more starred, then by id.
    expect(report.matches.map((m: any) => [m.blueprint.name, m.score])).toEqual([
      ['Twin', 1],
      ['Partial', 0.5917],
      ['Layered shop', 0.555],
      ['Layered shop', 0.555],
    ]);
    const twinMatch = report.matches.find((m: any) => m.blueprint.id === twin.id);
    expect(twinMatch).toMatchObject({ score: 1, breakdown: { modules: 1, edges: 1, kinds: 1, shape: 1 } });
    // modules 2/3, edges 1/2, kinds 2/3, shape 1/2 weighted 35/25/20/20.
    expect(report.matches.find((m: any) => m.blueprint.id === partial.id)).toMatchObject({
      score: 0.5917,
      breakdown: { modules: 0.6667, edges: 0.5, kinds: 0.6667, shape: 0.5 },
    });
  });

  it('matches a query graph given as params, and drops matches the agent excludes', async () => {
    const query = {
      modules: [
        { key: 'api', kind: 'backend', depends_on: ['db'] },
        { key: 'db', kind: 'data' },
      ],
    };
    const op = await startTool(server.rest, other, { tool_type: 'topological_search', params: { query } });
    expect(op.prompt).toContain('Partial');
    const res = await submit(server.rest, other, op, { exclude: [twin.id], notes: 'twin is a copy' });
    const report = res.body.result.report;
    expect(report.query).toEqual({ blueprint: null, modules: 2 });
    expect(report.matches[0]).toMatchObject({ blueprint: { id: partial.id }, score: 1 });
    expect(report.matches.map((m: any) => m.blueprint.id)).not.toContain(twin.id);
    expect(report.matches.map((m: any) => m.blueprint.name)).toContain('Hidden twin'); // its owner may see it
    expect(report.excluded).toEqual([twin.id]);
  });

  it('rejects a search with neither a source nor a query and creates no operation', async () => {
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const res = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'topological_search', params: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'params/query', message: 'is required without a source blueprint' }]);
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });
});
