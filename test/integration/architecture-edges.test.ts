/** Manual edges, computed lineage edges, and removing nodes and edges over REST. */
import { addEdge, addNode, architectureState, createArchitecture, sql } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let owner: string;
let other: string;
let base: any; // public, owned by `owner`
let forkOfBase: any; // public fork of base
let extra: any[]; // public forks of base, made by `other`

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('owner');
  other = await server.rest.agentToken('other');
  base = await createBlueprint(server.rest, owner, { name: 'Base' });
  forkOfBase = await fork(server.rest, owner, base.id);
  extra = [];
  for (let i = 0; i < 5; i++) extra.push(await fork(server.rest, other, base.id));
});
afterAll(() => server.close());

describe('POST /api/architectures/:slug/edges', () => {
  async function twoNodes(name: string) {
    const arch = await createArchitecture(server.rest, owner, { name });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[0].id });
    const b = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[1].id });
    return { arch, a, b };
  }

  it.each(['api_call', 'event', 'shared_db', 'auth'])('creates a manual %s edge, with or without a label', async (type) => {
    const { arch, a, b } = await twoNodes(`Edge ${type}`);
    const plain = await addEdge(server.rest, owner, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: type });
    expect(plain).toEqual({ id: expect.any(String), source_node_id: a.id, target_node_id: b.id, edge_type: type, label: null, computed: false });
    const labelled = await addEdge(server.rest, owner, arch.slug, { source_node_id: b.id, target_node_id: a.id, edge_type: type, label: ' orders ' });
    expect(labelled.label).toBe('orders');
    const body = (await server.rest.get(`/api/architectures/${arch.slug}`)).body;
    expect(body.edges.map((e: { id: string }) => e.id)).toEqual([plain.id, labelled.id]);
  });

  it('creates a custom edge when it has a label', async () => {
    const { arch, a, b } = await twoNodes('Edge custom');
    const edge = await addEdge(server.rest, owner, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'custom', label: 'mirrors' });
    expect(edge).toMatchObject({ edge_type: 'custom', label: 'mirrors' });
  });

  it.each(['lineage_fork', 'lineage_breed'])('refuses to create a %s edge with 403 and writes nothing', async (type) => {
    const { arch, a, b } = await twoNodes(`Edge ${type}`);
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/edges`, {
      token: owner,
      body: { source_node_id: a.id, target_node_id: b.id, edge_type: type },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.error.message).toMatch(/computed from fork and breed ancestry/);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it.each([
    ['custom without a label', (a: any, b: any) => ({ source_node_id: a.id, target_node_id: b.id, edge_type: 'custom' }), 'body/label'],
    ['custom with a blank label', (a: any, b: any) => ({ source_node_id: a.id, target_node_id: b.id, edge_type: 'custom', label: '   ' }), 'body/label'],
    ['an unknown edge type', (a: any, b: any) => ({ source_node_id: a.id, target_node_id: b.id, edge_type: 'grpc' }), 'body/edge_type'],
    ['no edge type', (a: any, b: any) => ({ source_node_id: a.id, target_node_id: b.id }), 'body/edge_type'],
    [
      'a source that is no node',
      (_a: any, b: any) => ({ source_node_id: '00000000-0000-4000-8000-000000000000', target_node_id: b.id, edge_type: 'auth' }),
      'body/source_node_id',
    ],
    ['a target that is not an id', (a: any) => ({ source_node_id: a.id, target_node_id: 'b', edge_type: 'auth' }), 'body/target_node_id'],
    ['an edge from a node to itself', (a: any) => ({ source_node_id: a.id, target_node_id: a.id, edge_type: 'event' }), 'body/target_node_id'],
    [
      'a label that is too long',
      (a: any, b: any) => ({ source_node_id: a.id, target_node_id: b.id, edge_type: 'event', label: 'x'.repeat(201) }),
      'body/label',
    ],
  ])('rejects %s with 400 naming the path, and writes nothing', async (_what, body, path) => {
    const { arch, a, b } = await twoNodes('Edge rejections');
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/edges`, { token: owner, body: body(a, b) });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it('rejects nodes of another architecture with 400', async () => {
    const one = await twoNodes('Edge one');
    const two = await twoNodes('Edge two');
    const before = await architectureState(server.databaseUrl, one.arch.slug);
    const res = await server.rest.post(`/api/architectures/${one.arch.slug}/edges`, {
      token: owner,
      body: { source_node_id: one.a.id, target_node_id: two.b.id, edge_type: 'api_call' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'body/target_node_id', message: 'is not a node of this architecture' }]);
    expect(await architectureState(server.databaseUrl, one.arch.slug)).toEqual(before);
  });

  it('refuses an identical edge with 409', async () => {
    const { arch, a, b } = await twoNodes('Edge twice');
    const first = await addEdge(server.rest, owner, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'custom', label: 'x' });
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/edges`, {
      token: owner,
      body: { source_node_id: a.id, target_node_id: b.id, edge_type: 'custom', label: 'x' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ edge_id: first.id });
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });
});

describe('computed lineage edges', () => {
  it('draws lineage_fork between a blueprint and its fork on the same architecture, with a deterministic id', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Lineage' });
    const parent = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const child = await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    const otherFork = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[2].id }); // forked from base by `other`
    const first = (await server.rest.get(`/api/architectures/${arch.slug}`)).body;
    const lineage = first.edges.filter((e: { computed: boolean }) => e.computed);
    expect(lineage).toContainEqual({
      id: `lineage:${parent.id}:${child.id}`,
      source_node_id: parent.id,
      target_node_id: child.id,
      edge_type: 'lineage_fork',
      label: null,
      computed: true,
    });
    expect(lineage).toContainEqual(expect.objectContaining({ id: `lineage:${parent.id}:${otherFork.id}`, edge_type: 'lineage_fork' }));
    expect(lineage).toHaveLength(2); // the two forks are siblings, not parent and child
    expect(lineage.every((e: { source_node_id: string }) => e.source_node_id === parent.id)).toBe(true);
    // Computed again on every read, identically.
    expect((await server.rest.get(`/api/architectures/${arch.slug}`)).body.edges).toEqual(first.edges);
    expect(
      await sql(server.databaseUrl, 'select count(*)::int as n from architecture_edge e join architecture a on a.id = e.architecture_id where a.slug = $1', [
        arch.slug,
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('draws lineage_breed from each parent of a breed child', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Breed lineage' });
    const p1 = await createBlueprint(server.rest, owner, { name: 'Parent one' });
    const p2 = await createBlueprint(server.rest, owner, { name: 'Parent two' });
    const child = await createBlueprint(server.rest, owner, { name: 'Offspring' });
    // No breed tool on this branch yet: record the links the breed tool would write.
    for (const p of [p1, p2])
      await sql(server.databaseUrl, `insert into lineage_link (id, parent_id, child_id, kind, created_at) values (gen_random_uuid(), $1, $2, 'breed', now())`, [
        p.id,
        child.id,
      ]);
    const [n1, n2, nc] = [
      await addNode(server.rest, owner, arch.slug, { blueprint_id: p1.id }),
      await addNode(server.rest, owner, arch.slug, { blueprint_id: p2.id }),
      await addNode(server.rest, owner, arch.slug, { blueprint_id: child.id }),
    ];
    const edges = (await server.rest.get(`/api/architectures/${arch.slug}`)).body.edges;
    expect(edges).toEqual(
      [
        { id: `lineage:${n1.id}:${nc.id}`, source_node_id: n1.id, target_node_id: nc.id, edge_type: 'lineage_breed', label: null, computed: true },
        { id: `lineage:${n2.id}:${nc.id}`, source_node_id: n2.id, target_node_id: nc.id, edge_type: 'lineage_breed', label: null, computed: true },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('refuses to delete a lineage edge with 403 and changes nothing', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Lineage delete' });
    const parent = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const child = await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.delete(`/api/architectures/${arch.slug}/edges/lineage:${parent.id}:${child.id}`, { token: owner });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/cannot be created or deleted by hand/);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
    expect((await server.rest.get(`/api/architectures/${arch.slug}`)).body.edges).toHaveLength(1);
  });
});

describe('DELETE nodes and edges', () => {
  it('removes a node together with its manual and computed edges', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Delete node' });
    const parent = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const child = await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    const third = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[3].id }); // another fork of base
    await addEdge(server.rest, owner, arch.slug, { source_node_id: parent.id, target_node_id: child.id, edge_type: 'api_call' });
    await addEdge(server.rest, owner, arch.slug, { source_node_id: child.id, target_node_id: third.id, edge_type: 'event' });
    const kept = await addEdge(server.rest, owner, arch.slug, { source_node_id: third.id, target_node_id: parent.id, edge_type: 'auth' });
    expect((await server.rest.delete(`/api/architectures/${arch.slug}/nodes/${child.id}`, { token: owner })).status).toBe(204);
    const body = (await server.rest.get(`/api/architectures/${arch.slug}`)).body;
    expect(body.nodes.map((n: any) => n.id)).toEqual([parent.id, third.id]);
    expect(body.edges.map((e: any) => e.id)).toEqual([kept.id, `lineage:${parent.id}:${third.id}`]);
  });

  it('removes a manual edge', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Delete edge' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[0].id });
    const b = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[1].id });
    const edge = await addEdge(server.rest, owner, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'shared_db' });
    expect((await server.rest.delete(`/api/architectures/${arch.slug}/edges/${edge.id}`, { token: owner })).status).toBe(204);
    expect((await server.rest.get(`/api/architectures/${arch.slug}`)).body.edges).toEqual([]);
  });

  it('is 404 for unknown nodes and edges (and for those of another architecture), changing nothing', async () => {
    const one = await createArchitecture(server.rest, owner, { name: 'Delete unknown one' });
    const two = await createArchitecture(server.rest, owner, { name: 'Delete unknown two' });
    const a = await addNode(server.rest, owner, one.slug, { blueprint_id: extra[0].id });
    const b = await addNode(server.rest, owner, one.slug, { blueprint_id: extra[1].id });
    const edge = await addEdge(server.rest, owner, one.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'auth' });
    const before = await architectureState(server.databaseUrl, one.slug);
    for (const path of [`nodes/${a.id}`, `edges/${edge.id}`])
      expect((await server.rest.delete(`/api/architectures/${two.slug}/${path}`, { token: owner })).status).toBe(404);
    for (const path of ['nodes/00000000-0000-4000-8000-000000000000', 'nodes/x', 'edges/00000000-0000-4000-8000-000000000000', 'edges/x'])
      expect((await server.rest.delete(`/api/architectures/${one.slug}/${path}`, { token: owner })).status).toBe(404);
    expect(await architectureState(server.databaseUrl, one.slug)).toEqual(before);
  });
});
