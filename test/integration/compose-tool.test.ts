import { overlaps } from '../../src/architectures/layout';
import { principalIdOf, sql } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let token: string;
let stranger: string;
let spa: any;
let api: any;
let worker: any;
let apiFork: any;
let hidden: any;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken('composer');
  stranger = await server.rest.agentToken('stranger');
  spa = await createBlueprint(server.rest, token, {
    name: 'Storefront',
    modules: [{ key: 'web', name: 'Web', kind: 'frontend' }],
    steps: [{ key: 'pages', module_key: 'web' }],
  });
  api = await createBlueprint(server.rest, token, {
    name: 'Orders API',
    modules: [
      { key: 'http', name: 'HTTP', kind: 'backend', depends_on: ['db'] },
      { key: 'db', name: 'DB', kind: 'data' },
    ],
    steps: [
      { key: 'schema', module_key: 'db' },
      { key: 'routes', module_key: 'http' },
    ],
  });
  worker = await createBlueprint(server.rest, token, {
    name: 'Worker',
    modules: [
      { key: 'jobs', name: 'Jobs', kind: 'queue', depends_on: ['db'] },
      { key: 'db', name: 'DB', kind: 'data' },
    ],
    steps: [{ key: 'consume', module_key: 'jobs' }],
  });
  apiFork = await fork(server.rest, token, api.id);
  hidden = await createBlueprint(server.rest, stranger, { name: 'Hidden', visibility: 'private' });
});
afterAll(() => server.close());

const start = (sources: string[], params: Record<string, unknown> = {}, as = token) =>
  server.rest.post('/api/tools/operations', { token: as, body: { tool_type: 'compose', source_blueprint_ids: sources, params } });
const submit = (op: any, submission: unknown, stepToken = op.token) =>
  server.rest.post(`/api/tools/operations/${op.operation_id}/submit`, { token, body: { token: stepToken, submission } });
const architectures = async () => (await sql(server.databaseUrl, 'select count(*)::int as n from architecture'))[0].n;

describe('the compose tool', () => {
  it('makes a new architecture with the sources as nodes and the confirmed edges; lineage appears by itself', async () => {
    const started = await start([spa.id, api.id, worker.id, apiFork.id], { name: 'Shop system' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ tool_type: 'compose', status: 'active', step: 1, total_steps: 2 });
    expect(started.body.prompt).toContain('Orders API -> Orders API (fork)');
    const inferred = JSON.parse(started.body.prompt.match(/Edges inferred from the modules \(with the reason for each\):\n([\s\S]*?)\n\nStep 1/)[1]);
    expect(inferred).toContainEqual(
      expect.objectContaining({ source_blueprint_id: spa.id, target_blueprint_id: api.id, edge_type: 'api_call', label: 'web -> http' }),
    );
    expect(inferred).toContainEqual(
      expect.objectContaining({ source_blueprint_id: api.id, target_blueprint_id: worker.id, edge_type: 'shared_db', label: 'shared db' }),
    );
    // The fork shares everything with its parent, but lineage already joins them: no custom edge between them.
    expect(
      inferred.filter(
        (e: any) => e.edge_type === 'custom' && [e.source_blueprint_id, e.target_blueprint_id].sort().join() === [api.id, apiFork.id].sort().join(),
      ),
    ).toEqual([]);

    const edges = [
      ...inferred.filter((e: any) => e.edge_type !== 'custom').map(({ reason: _r, ...e }: any) => e),
      { source_blueprint_id: worker.id, target_blueprint_id: spa.id, edge_type: 'custom', label: 'notifies' },
    ];
    const step1 = await submit(started.body, { edges });
    expect(step1.status).toBe(200);
    expect(step1.body).toMatchObject({ step: 2, done: false });
    expect(step1.body.prompt).toContain('Suggested name: Shop system');
    const done = await submit(step1.body, { name: 'Shop system', description: 'All of it', visibility: 'private' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', done: true, token: null });
    const { architecture, node_ids } = done.body.result;
    expect(architecture).toMatchObject({ slug: 'shop-system', name: 'Shop system', visibility: 'private' });

    const body = (await server.rest.get(`/api/architectures/${architecture.slug}`, { token })).body;
    expect(body).toMatchObject({ description: 'All of it', owner_id: await principalIdOf(server.gql, token), team_id: null });
    expect(body.nodes.map((n: any) => n.id)).toEqual(node_ids);
    expect(body.nodes.map((n: any) => n.blueprint_id)).toEqual([spa.id, api.id, worker.id, apiFork.id]);
    const points = body.nodes.map((n: any) => ({ x: n.position_x, y: n.position_y }));
    for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) expect(overlaps(points[i], points[j])).toBe(false);
    const nodeOf = (bpId: string) => body.nodes.find((n: any) => n.blueprint_id === bpId).id;
    expect(body.edges.filter((e: any) => !e.computed).map((e: any) => [e.source_node_id, e.target_node_id, e.edge_type, e.label])).toEqual(
      edges.map((e: any) => [nodeOf(e.source_blueprint_id), nodeOf(e.target_blueprint_id), e.edge_type, e.label]),
    );
    expect(body.edges.filter((e: any) => e.computed)).toEqual([
      {
        id: `lineage:${nodeOf(api.id)}:${nodeOf(apiFork.id)}`,
        source_node_id: nodeOf(api.id),
        target_node_id: nodeOf(apiFork.id),
        edge_type: 'lineage_fork',
        label: null,
        computed: true,
      },
    ]);
    expect((await server.rest.get(`/api/architectures/${architecture.slug}`, { token: stranger })).status).toBe(404);
  });

  it.each([
    ['one source', () => [spa.id], 400],
    ['a source the caller may not read', () => [spa.id, hidden.id], 404],
    ['a repeated source', () => [spa.id, spa.id], 400],
  ] as const)('refuses to start with %s and writes nothing', async (_what, sources, status) => {
    const before = await sql(server.databaseUrl, 'select count(*)::int as n from tool_operation');
    const res = await start(sources());
    expect(res.status).toBe(status);
    expect(await sql(server.databaseUrl, 'select count(*)::int as n from tool_operation')).toEqual(before);
  });

  it('refuses unknown params with 400', async () => {
    const res = await start([spa.id, api.id], { colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('params/colour');
  });

  it.each([
    ['a lineage edge', () => ({ source_blueprint_id: api.id, target_blueprint_id: spa.id, edge_type: 'lineage_fork' }), 'submission/edges/0/edge_type'],
    ['an unknown edge type', () => ({ source_blueprint_id: api.id, target_blueprint_id: spa.id, edge_type: 'rpc' }), 'submission/edges/0/edge_type'],
    [
      'a blueprint that is not a source',
      () => ({ source_blueprint_id: worker.id, target_blueprint_id: spa.id, edge_type: 'auth' }),
      'submission/edges/0/source_blueprint_id',
    ],
    ['a custom edge without a label', () => ({ source_blueprint_id: api.id, target_blueprint_id: spa.id, edge_type: 'custom' }), 'submission/edges/0/label'],
    [
      'an edge from a source to itself',
      () => ({ source_blueprint_id: api.id, target_blueprint_id: api.id, edge_type: 'event' }),
      'submission/edges/0/target_blueprint_id',
    ],
  ])('rejects %s in the edges step with 400; the step and its token stay', async (_what, edge, path) => {
    const started = (await start([spa.id, api.id])).body;
    const archsBefore = await architectures();
    const res = await submit(started, { edges: [edge()] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: any) => i.path)).toContain(path);
    const status = await server.rest.get(`/api/tools/operations/${started.operation_id}`, { token });
    expect(status.body).toMatchObject({ status: 'active', step: 1 });
    expect((await submit(started, { edges: [] })).status).toBe(200);
    expect(await architectures()).toBe(archsBefore);
  });

  it('rejects a repeated edge', async () => {
    const started = (await start([spa.id, api.id])).body;
    const edge = { source_blueprint_id: spa.id, target_blueprint_id: api.id, edge_type: 'api_call', label: 'x' };
    const res = await submit(started, { edges: [edge, edge] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('submission/edges/1');
  });
});
