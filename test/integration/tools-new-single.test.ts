import { createBlueprint } from '../fixtures/blueprints';
import { clusteredSpec, shopSpec } from '../fixtures/plans';
import { expectRejected, planOf, startTool, storedOrigin, submit, submitAll, writtenRows } from '../fixtures/tools';
import { BlueprintProvenanceDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let token: string;
let shop: any;
let toolkit: any;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken();
  shop = await createBlueprint(server.rest, token, shopSpec);
  toolkit = await createBlueprint(server.rest, token, clusteredSpec);
});
afterAll(() => server.close());

const get = async (id: string) => (await server.rest.get(`/api/blueprints/${id}`, { token })).body;

/** A single-source result is a fork: `forked_from`, a fork link with the operation, the source's fork count. */
async function expectForkOf(childId: string, source: any): Promise<void> {
  const child = await get(childId);
  expect(child.forked_from).toEqual({ id: source.id, slug: source.slug, name: source.name });
  const up = await server.rest.get(`/api/blueprints/${childId}/lineage`, { token });
  expect(up.body.parents).toEqual([{ kind: 'fork', blueprint: expect.objectContaining({ id: source.id }) }]);
  const down = await server.rest.get(`/api/blueprints/${source.id}/lineage`, { token });
  expect(down.body.children).toContainEqual({ kind: 'fork', blueprint: expect.objectContaining({ id: childId }) });
}

describe('shatter', () => {
  it('writes one new blueprint per dependency cluster, named by the agent, each a fork of the source', async () => {
    const forksBefore = (await get(toolkit.id)).forks_count;
    const started = await startTool(server.rest, token, 'shatter', [toolkit.id]);
    expect(started.total_steps).toBe(1);
    expect(started.prompt).toContain('found 3 independent module clusters');
    const [final] = await submitAll(server.rest, token, started, [
      { blueprints: [{ name: 'Toolkit API', tags: ['api'] }, { name: 'Toolkit CLI', visibility: 'private' }, {}] },
    ]);
    expect(final.result.clusters).toEqual([['api', 'db'], ['cli'], ['docs']]);
    expect(final.result.blueprint_ids).toHaveLength(3);
    const [api, cli, docs] = await Promise.all(final.result.blueprint_ids.map(get));
    expect([api.name, cli.name, docs.name]).toEqual(['Toolkit API', 'Toolkit CLI', 'Toolkit: Docs']);
    expect([api.visibility, cli.visibility, docs.visibility]).toEqual(['public', 'private', 'public']);
    expect(planOf(api)).toEqual({
      modules: [toolkit.modules[0], toolkit.modules[1]],
      steps: [toolkit.steps[0], toolkit.steps[2]],
      configuration: toolkit.configuration,
      design_system: {},
    });
    expect(cli.steps.map((s: any) => s.key)).toEqual(['cli-args']);
    expect(docs.steps.map((s: any) => s.key)).toEqual(['guide']);
    for (const piece of [api, cli, docs]) await expectForkOf(piece.id, toolkit);
    const origin = await storedOrigin(server.databaseUrl, cli.id);
    expect(origin.links).toEqual([{ parent_id: toolkit.id, kind: 'fork', operation_id: started.operation_id }]);
    expect(origin.version).toEqual([
      { number: 1, cause: 'shatter', changes: expect.objectContaining({ forked_from: toolkit.id, shatter_piece: 2, shatter_pieces: 3 }) },
    ]);
    // forks_count counts public forks only (issue 24 #9): the private CLI piece is not counted.
    expect((await get(toolkit.id)).forks_count).toBe(forksBefore + 2);
  });

  it('rejects a source with one cluster at start, and a wrong number of names; nothing is written', async () => {
    const before = await writtenRows(server.databaseUrl);
    const one = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'shatter', source_blueprint_ids: [shop.id] } });
    expect({ status: one.status, path: one.body.error.details.issues[0].path }).toEqual({ status: 400, path: 'source_blueprint_ids/0' });
    const started = await startTool(server.rest, token, 'shatter', [toolkit.id]);
    const res = await submit(server.rest, token, started, { blueprints: [{ name: 'Only one' }] });
    await expectRejected(server.rest, token, started, res, 'submission/blueprints');
    expect(res.body.error.message).toContain('exactly 3 entries');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});

describe('transmute', () => {
  it('keeps the modules, takes the rewritten steps and sets the target stack in the configuration', async () => {
    const started = await startTool(server.rest, token, 'transmute', [shop.id], { language: 'python', framework: 'django' });
    expect(started.total_steps).toBe(3);
    expect(started.prompt).toContain('instructions: Tables for orders');
    const steps = [
      { key: 'models', module_key: 'db', title: 'Django models', instructions: 'Write models and makemigrations', acceptance: ['migrate runs'] },
      { key: 'views', module_key: 'api', title: 'DRF views', instructions: 'ViewSets for orders', acceptance: ['pytest passes'] },
      { key: 'templates', module_key: 'web', title: 'Templates', instructions: 'Catalogue templates', acceptance: ['renders'] },
    ];
    const [, , final] = await submitAll(server.rest, token, started, [
      { steps },
      { configuration: { runtime: 'cpython-3.12', language: 'ruby', package_manager: 'uv' } },
      {},
    ]);
    const bp = await get(final.result.blueprint_ids[0]);
    expect(planOf(bp)).toEqual({
      modules: shop.modules,
      steps: steps.map((s) => ({ ...s })),
      configuration: { runtime: 'cpython-3.12', language: 'python', framework: 'django', package_manager: 'uv' },
      design_system: shop.design_system,
    });
    expect(bp.name).toBe('Shop (python / django)');
    expect(final.result).toMatchObject({ language: 'python', framework: 'django' });
    await expectForkOf(bp.id, shop);
  });

  it('rejects a step of an unknown module, a module left without steps, and params without a target', async () => {
    const noTarget = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'transmute', source_blueprint_ids: [shop.id], params: {} } });
    expect(noTarget.status).toBe(400);
    const started = await startTool(server.rest, token, 'transmute', [shop.id], { framework: 'fastify' });
    const before = await writtenRows(server.databaseUrl);
    const unknown = await submit(server.rest, token, started, {
      steps: [
        { key: 'a', module_key: 'db', title: 'A', instructions: '' },
        { key: 'b', module_key: 'mobile', title: 'B', instructions: '' },
      ],
    });
    await expectRejected(server.rest, token, started, unknown, 'submission/steps/1/module_key');
    const dropped = await submit(server.rest, token, started, { steps: [{ key: 'a', module_key: 'db', title: 'A', instructions: '' }] });
    await expectRejected(server.rest, token, started, dropped, 'submission/steps');
    expect(dropped.body.error.message).toContain('api, web');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});

describe('distill', () => {
  it('keeps the core modules and what they depend on, and removes the rest', async () => {
    const started = await startTool(server.rest, token, 'distill', [shop.id]);
    expect(started.total_steps).toBe(2);
    const [chosen, final] = await submitAll(server.rest, token, started, [{ core: ['api'] }, { name: 'Shop backend' }]);
    expect(chosen.prompt).toContain('kept db, api; removed web');
    const bp = await get(final.result.blueprint_ids[0]);
    expect(planOf(bp)).toEqual({
      modules: [shop.modules[0], shop.modules[1]],
      steps: [shop.steps[0], shop.steps[1]],
      configuration: shop.configuration,
      design_system: shop.design_system,
    });
    expect(final.result).toMatchObject({ core: ['api'], modules_removed: ['web'] });
    await expectForkOf(bp.id, shop);
  });

  it('rejects an unknown core key and stays usable', async () => {
    const started = await startTool(server.rest, token, 'distill', [shop.id]);
    const before = await writtenRows(server.databaseUrl);
    const res = await submit(server.rest, token, started, { core: ['api', 'billing'] });
    await expectRejected(server.rest, token, started, res, 'submission/core/1');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
    expect((await submit(server.rest, token, started, { core: ['db'] })).status).toBe(200);
  });
});

describe('amplify', () => {
  it('replaces the expanded steps by their finer steps, in place and in the same module', async () => {
    const started = await startTool(server.rest, token, 'amplify', [shop.id]);
    expect(started.total_steps).toBe(2);
    const [, final] = await submitAll(server.rest, token, started, [
      {
        expansions: [
          {
            step: 'endpoints',
            into: [
              { key: 'endpoints', title: 'Order routes', instructions: 'GET/POST /orders', acceptance: ['201 on create'] },
              { key: 'endpoint-auth', title: 'Auth', instructions: 'Bearer tokens', acceptance: ['401 without token'] },
            ],
          },
        ],
      },
      {},
    ]);
    const bp = await get(final.result.blueprint_ids[0]);
    expect(planOf(bp)).toEqual({
      modules: shop.modules,
      steps: [
        shop.steps[0],
        { key: 'endpoints', module_key: 'api', title: 'Order routes', instructions: 'GET/POST /orders', acceptance: ['201 on create'] },
        { key: 'endpoint-auth', module_key: 'api', title: 'Auth', instructions: 'Bearer tokens', acceptance: ['401 without token'] },
        shop.steps[2],
      ],
      configuration: shop.configuration,
      design_system: shop.design_system,
    });
    expect(final.result.steps_expanded).toEqual([{ step: 'endpoints', into: ['endpoints', 'endpoint-auth'] }]);
    expect(bp.name).toBe('Shop (detailed)');
    await expectForkOf(bp.id, shop);
    const gql = await server.gql.ok(BlueprintProvenanceDocument, { id: bp.id }, token);
    expect(gql.blueprint!.provenance).toEqual([]);
  });

  it('rejects an unknown step, a single finer step and a key another step keeps', async () => {
    const started = await startTool(server.rest, token, 'amplify', [shop.id]);
    const before = await writtenRows(server.databaseUrl);
    const two = [
      { key: 'x1', title: 'X1', instructions: '' },
      { key: 'x2', title: 'X2', instructions: '' },
    ];
    await expectRejected(
      server.rest,
      token,
      started,
      await submit(server.rest, token, started, { expansions: [{ step: 'nope', into: two }] }),
      'submission/expansions/0/step',
    );
    await expectRejected(
      server.rest,
      token,
      started,
      await submit(server.rest, token, started, { expansions: [{ step: 'pages', into: [two[0]] }] }),
      'submission/expansions/0/into',
    );
    const clash = [two[0], { key: 'schema', title: 'S', instructions: '' }];
    await expectRejected(
      server.rest,
      token,
      started,
      await submit(server.rest, token, started, { expansions: [{ step: 'pages', into: clash }] }),
      'submission/expansions/0/into/1/key',
    );
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});
