import { defaultLimits } from '../../src/platform/config';
import { addNode, createArchitecture } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { mcpCall } from '../helpers/mcp';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';

/**
 * Issue 24 finding 1: no answer may carry a hundred plans. One plan at the size limit (500 modules, 5,000
 * steps, about 0.9 MB), forked until its forks' plans are over the GraphQL answer budget, read over every
 * surface that lists forks, children, parents or lineage: REST and MCP answer cards (a bounded body),
 * GraphQL refuses with one VALIDATION_FAILED naming the budget (no partial data), over HTTP and graphql-ws.
 * Default limits throughout.
 */
let server: TestServer;
let owner: string;
let root: { id: string; slug: string };
const FORKS = 5;
const sockets: WsClient[] = [];

/** 500 modules and 5,000 steps with instructions long enough to make the plan about 0.9 MB. */
function planAtTheLimit() {
  const modules = Array.from({ length: defaultLimits.planMaxModules }, (_, i) => ({ key: `m${i}`, name: `Module ${i}`, kind: 'service', depends_on: [] }));
  const steps = Array.from({ length: defaultLimits.planMaxSteps }, (_, i) => ({
    key: `s${i}`,
    module_key: `m${i % modules.length}`,
    title: `Step ${i}`,
    instructions: `Do the part ${i} of the work carefully and check it twice. `.padEnd(85, '.'),
    acceptance: ['it works'],
  }));
  return { name: 'At the limit', modules, steps };
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('big-owner');
  root = await createBlueprint(server.rest, owner, planAtTheLimit());
  for (let i = 0; i < FORKS; i++) await fork(server.rest, owner, root.id);
}, 120_000);

afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

it('the plan is at the size limit and its forks together exceed the budget', async () => {
  const bp = (await server.rest.get(`/api/blueprints/${root.id}`, { token: owner })).body;
  expect(bp.module_count).toBe(500);
  expect(bp.step_count).toBe(5000);
  const bytes = Buffer.byteLength(JSON.stringify({ modules: bp.modules, steps: bp.steps }));
  expect(bytes).toBeGreaterThan(800_000);
  expect(bytes * FORKS).toBeGreaterThan(defaultLimits.responsePlanBytesMax);
});

describe('REST and MCP fork lists carry cards, never plans', () => {
  it('GET /api/blueprints/:id/forks?limit=100 is a small body of cards', async () => {
    const res = await server.rest.get(`/api/blueprints/${root.id}/forks?limit=100`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(FORKS);
    expect(res.body.items).toHaveLength(FORKS);
    expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(1000 * FORKS);
    for (const item of res.body.items) {
      expect(item).toMatchObject({ module_count: 500, step_count: 5000, forked_from: { id: root.id } });
      expect(item).not.toHaveProperty('modules');
      expect(item).not.toHaveProperty('steps');
      expect(item).not.toHaveProperty('configuration');
    }
  });

  it('MCP blueprint_forks answers the same small body', async () => {
    const answer = await mcpCall(server.url, owner, 'blueprint_forks', { blueprint_id: root.id, limit: 100 });
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBeFalsy();
    expect(Buffer.byteLength(JSON.stringify(answer.body))).toBeLessThan(2 * 1000 * FORKS);
    const body = JSON.parse(answer.body.result.content[0].text);
    expect(body.items).toHaveLength(FORKS);
    expect(body.items[0]).not.toHaveProperty('steps');
  });

  it('GET /api/blueprints/:id/lineage stays cards', async () => {
    const res = await server.rest.get(`/api/blueprints/${root.id}/lineage`, { token: owner });
    expect(res.body.children).toHaveLength(FORKS);
    expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(1000 * FORKS);
  });
});

/** The one refusal: 400, no data, VALIDATION_FAILED with the budget in its details. */
function expectBudgetRefusal(res: { status: number; data: unknown; errors?: Array<{ message: string; extensions?: { code?: string; details?: any } }> }) {
  expect(res.status).toBe(400);
  expect(res.data ?? null).toBeNull();
  expect(res.errors).toHaveLength(1);
  expect(res.errors![0]!.extensions).toMatchObject({
    code: 'VALIDATION_FAILED',
    details: { max_response_plan_bytes: defaultLimits.responsePlanBytesMax, response_plan_bytes: expect.any(Number) },
  });
  expect(res.errors![0]!.message).toMatch(/more than \d+ bytes of plans/);
}

describe('GraphQL answers within the plan budget or refuses before reading the plans', () => {
  const lists: Array<[string, string]> = [
    ['forks(first: 100) { steps }', `query($id: ID!) { blueprint(id: $id) { forks(first: 100) { edges { node { steps { key } } } } } }`],
    [
      'three aliased forks(first: 100) { steps }',
      `query($id: ID!) { blueprint(id: $id) { a: forks(first: 100) { edges { node { steps { key } } } } b: forks(first: 100) { edges { node { steps { key } } } } c: forks(first: 100) { edges { node { modules { key } } } } } }`,
    ],
    ['children { blueprint { steps } }', `query($id: ID!) { blueprint(id: $id) { children { blueprint { steps { key } } } } }`],
    ['lineage { nodes { steps } }', `query($id: ID!) { blueprint(id: $id) { lineage(direction: DOWN, depth: 50) { nodes { steps { key } } } } }`],
    ['lineage { edges { child { modules } } }', `query($id: ID!) { blueprint(id: $id) { lineage(direction: DOWN) { edges { child { modules { key } } } } } }`],
    [
      'one blueprint with steps under three aliases (an alias pays again)',
      `query($id: ID!) { blueprint(id: $id) { a: steps { key } b: steps { key } c: steps { key } } }`,
    ],
    ['registry(first: 100) { modules }', `query { registry(first: 100) { edges { node { modules { key } } } } }`],
  ];

  it.each(lists)('refuses %s with one VALIDATION_FAILED and no data', async (_name, query) => {
    const res = await server.gql.request<any, any>(query, { id: root.id }, owner);
    expectBudgetRefusal(res);
  });

  it.each([
    ['forks', lists[0]![1], 'Blueprint.forks'],
    ['registry', lists[6]![1], 'Query.registry'],
  ])('refuses a page of %s whose plans cannot fit at the list, before its items are resolved one by one', async (_name, query, field) => {
    const res = await server.gql.request<any, any>(query, { id: root.id }, owner);
    expectBudgetRefusal(res);
    expect(res.errors![0]!.message).toContain(`(at ${field})`);
  });

  it('answers a list whose plans fit: a few forks with their steps, and one blueprint with every plan field', async () => {
    const few = await server.gql.request<any, any>(
      `query($id: ID!) { blueprint(id: $id) { forks(first: 2) { edges { node { steps { key } } } } } }`,
      { id: root.id },
      owner,
    );
    expect(few.errors).toBeUndefined();
    expect(few.data.blueprint.forks.edges.map((e: any) => e.node.steps.length)).toEqual([5000, 5000]);
    const one = await server.gql.request<any, any>(
      `query($id: ID!) { blueprint(id: $id) { modules { key } steps { key } configuration designSystem } }`,
      { id: root.id },
      owner,
    );
    expect(one.errors).toBeUndefined();
    expect(one.data.blueprint.steps).toHaveLength(5000);
  });

  it('refuses the same list over graphql-ws, and the socket serves the next operation', async () => {
    const client = connectWs(server.url, owner);
    sockets.push(client);
    const sub = client.subscribe<any, any>(lists[0]![1], { id: root.id });
    const result = await sub.next(30_000);
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { max_response_plan_bytes: defaultLimits.responsePlanBytesMax },
    });
    const next = client.subscribe<any, any>(`query($id: ID!) { blueprint(id: $id) { forks(first: 2) { edges { node { stepCount } } } } }`, { id: root.id });
    expect((await next.next(10_000)).data).toMatchObject({ blueprint: { forks: { edges: [{ node: { stepCount: 5000 } }, { node: { stepCount: 5000 } }] } } });
  });

  it('gives every event of a subscription its own budget: an event over it is refused, the next event within it is answered', async () => {
    const mark = liveMark(server);
    const client = connectWs(server.url, owner);
    sockets.push(client);
    const over = client.subscribe<any, any>(
      `subscription($id: ID!) { blueprintActivity(id: $id) { kind blueprint { forks(first: 100) { edges { node { steps { key } } } } } } }`,
      {
        id: root.id,
      },
    );
    const within = client.subscribe<any, any>(`subscription($id: ID!) { blueprintActivity(id: $id) { kind blueprint { steps { key } } } }`, { id: root.id });
    await mark.streaming(2);
    for (const round of [1, 2]) {
      expect((await server.rest.post(`/api/blueprints/${root.id}/star`, { token: owner })).status).toBe(200);
      expect((await server.rest.delete(`/api/blueprints/${root.id}/star`, { token: owner })).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const refused = await over.next(30_000);
        expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
        const answered = await within.next(30_000);
        expect(answered.errors).toBeUndefined();
        expect(answered.data.blueprintActivity.blueprint.steps).toHaveLength(5000);
      }
      expect(round).toBeGreaterThan(0);
    }
  });
});

describe('the architecture zoom fields charge the plans they read', () => {
  let slug: string;
  let small: string;
  beforeAll(async () => {
    // The plan at the limit and its forks on one canvas: their plans together are over the budget.
    const forks = (await server.rest.get(`/api/blueprints/${root.id}/forks?limit=100`, { token: owner })).body.items as Array<{ id: string }>;
    slug = (await createArchitecture(server.rest, owner, { name: 'Big canvas' })).slug;
    for (const [i, id] of [root.id, ...forks.map((f) => f.id)].entries())
      await addNode(server.rest, owner, slug, { blueprint_id: id, position_x: i * 10, position_y: 0 });
    small = (await createArchitecture(server.rest, owner, { name: 'Two nodes' })).slug;
    for (const [i, id] of [root.id, forks[0]!.id].entries()) await addNode(server.rest, owner, small, { blueprint_id: id, position_x: i * 10, position_y: 0 });
  }, 120_000);

  const zooms: Array<[string, string]> = [
    ['nodes { modules }', 'nodes { modules { key } }'],
    ['nodes { dependencies }', 'nodes { dependencies { source } }'],
    ['nodes { module(key) }', 'nodes { module(key: "m1") { module { key } } }'],
    ['nodes { blueprint { steps } }', 'nodes { blueprint { steps { key } } }'],
  ];

  it.each(zooms)('refuses %s over the budget with one VALIDATION_FAILED and no data', async (_name, selection) => {
    expectBudgetRefusal(await server.gql.request<any, any>(`query($slug: String!) { architecture(slug: $slug) { ${selection} } }`, { slug }, owner));
  });

  it('answers the zoom fields of a canvas whose plans fit, each plan paid once for its zoom fields', async () => {
    const res = await server.gql.request<any, any>(
      `query($slug: String!) { architecture(slug: $slug) { nodes { modules { key } dependencies { source } module(key: "m1") { module { key } } composition { kind } } } }`,
      { slug: small },
      owner,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.architecture.nodes.map((n: any) => n.modules.length)).toEqual([500, 500]);
    expect(res.data.architecture.nodes[0].module.module.key).toBe('m1');
  });

  it('leaves the ecosystem view (cards and composition, no plan) of the big canvas unrefused', async () => {
    const res = await server.gql.request<any, any>(
      `query($slug: String!) { architecture(slug: $slug) { nodes { card { moduleCount } composition { kind count } } } }`,
      { slug },
      owner,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.architecture.nodes).toHaveLength(FORKS + 1);
  });
});
