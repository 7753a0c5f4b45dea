import { createBlueprint } from '../../fixtures/blueprints';
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

describe('phenotyping', () => {
  it('reports the traits the server measures, with the agent narrative and estimate', async () => {
    const done = await runTool(server.rest, other, { tool_type: 'phenotyping', source_blueprint_ids: [layered.id] }, [
      { narrative: 'API is the bottleneck.', effort_estimate: { low: 3, high: 5, unit: 'days' } },
    ]);
    expect(done.result.report).toEqual({
      blueprint: { id: layered.id, slug: layered.slug, name: 'Layered shop' },
      traits: {
        stack: { language: 'typescript', framework: 'fastify' },
        sizes: {
          modules: 5,
          steps: 7,
          dependencies: 4,
          acceptance_checks: 6,
          modules_by_kind: { backend: 2, data: 1, frontend: 1, infra: 1 },
          steps_by_module: { db: 2, cache: 1, api: 2, worker: 1, web: 1 },
          steps_per_module: { min: 1, max: 2, mean: 1.4 },
          steps_without_acceptance: 1,
          modules_without_steps: 0,
        },
        shape: { depth: 3, width: 2, clusters: 1, entry_points: ['web', 'worker'], foundations: ['cache', 'db'] },
        critical_path: { modules: ['db', 'api', 'web'], steps: 5 },
        effort: { steps: 7, critical_path_steps: 5, parallelism: 1.4 },
      },
      narrative: 'API is the bottleneck.',
      effort_estimate: { low: 3, high: 5, unit: 'days' },
    });
  });

  it('rejects an estimate whose low end exceeds its high end, keeping the operation usable', async () => {
    const op = await startTool(server.rest, owner, { tool_type: 'phenotyping', source_blueprint_ids: [layered.id] });
    const bad = await submit(server.rest, owner, op, { narrative: 'x', effort_estimate: { low: 9, high: 2, unit: 'hours' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('submission/effort_estimate/low');
    expect((await server.rest.get(`/api/tools/operations/${op.operation_id}`, { token: owner })).body).toMatchObject({ status: 'active', step: 1 });
    expect((await submit(server.rest, owner, op, { narrative: 'x' })).body.result.report.effort_estimate).toBeNull();
  });
});

describe('swarm_partition', () => {
  it('splits the steps into lanes level by level, balancing each level, exactly as the server computes', async () => {
    const done = await runTool(server.rest, owner, { tool_type: 'swarm_partition', source_blueprint_ids: [layered.id], params: { lanes: 2 } }, [{ moves: [] }]);
    const report = done.result.report;
    expect(report.lanes).toBe(2);
    expect(report.partition).toEqual([
      { lane: 1, modules: ['db', 'worker', 'web'], steps: ['schema', 'seed', 'jobs', 'pages'], step_count: 4 },
      { lane: 2, modules: ['cache', 'api'], steps: ['cache-setup', 'endpoints', 'auth'], step_count: 3 },
    ]);
    expect(report.levels).toEqual([
      { level: 0, modules: ['cache', 'db'] },
      { level: 1, modules: ['api', 'worker'] },
      { level: 2, modules: ['web'] },
    ]);
  });

  it("applies the agent's moves of whole modules, keeping each lane in level order", async () => {
    const done = await runTool(server.rest, owner, { tool_type: 'swarm_partition', source_blueprint_ids: [layered.id], params: { lanes: 2 } }, [
      { moves: [{ module_key: 'web', lane: 2 }], notes: 'keep the UI with the API' },
    ]);
    expect(done.result.report.partition.map((l: any) => l.steps)).toEqual([
      ['schema', 'seed', 'jobs'],
      ['cache-setup', 'endpoints', 'auth', 'pages'],
    ]);
    expect(done.result.report).toMatchObject({ moves: [{ module_key: 'web', lane: 2 }], notes: 'keep the UI with the API' });
  });

  it('rejects zero lanes at start and creates no operation', async () => {
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const res = await server.rest.post('/api/tools/operations', {
      token: owner,
      body: { tool_type: 'swarm_partition', source_blueprint_ids: [layered.id], params: { lanes: 0 } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'params/lanes' }] } });
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });
});
