import {
  AddArchitectureEdgeDocument,
  AddArchitectureNodeDocument,
  ArchitectureChangedDocument,
  ArchitectureEcosystemDocument,
  ArchitectureModuleDetailDocument,
  ArchitectureNodeModulesDocument,
  CreateArchitectureDocument,
  PublicArchitecturesDocument,
  RemoveArchitectureEdgeDocument,
  RemoveArchitectureNodeDocument,
  TransferArchitectureDocument,
  UpdateArchitectureLayoutDocument,
  type ArchitectureChangedSubscription,
} from '../generated/graphql';
import { addNode, architectureState, createArchitecture, createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type Subscription, type WsClient } from '../helpers/ws';

let server: TestServer;
let owner: string;
let ownerId: string;
let editor: string; // a member of the team
let stranger: string;
let teamId: string;
let shop: any; // public; modules web -> api -> db, plus auth
let forks: any[];
const sockets: WsClient[] = [];

const shopModules = [
  { key: 'web', name: 'Web', kind: 'frontend', depends_on: ['api'] },
  { key: 'api', name: 'API', kind: 'backend', depends_on: ['db', 'auth'] },
  { key: 'auth', name: 'Auth', kind: 'backend', depends_on: ['db'] },
  { key: 'db', name: 'DB', kind: 'data', depends_on: [] },
];
const shopSteps = [
  { key: 'schema', module_key: 'db', title: 'Schema' },
  { key: 'login', module_key: 'auth', title: 'Login' },
  { key: 'routes', module_key: 'api', title: 'Routes' },
  { key: 'pages', module_key: 'web', title: 'Pages' },
  { key: 'tests', module_key: 'api', title: 'API tests' },
];

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('owner');
  ownerId = await principalIdOf(server.gql, owner);
  editor = await server.rest.agentToken('editor');
  stranger = await server.rest.agentToken('stranger');
  teamId = (await createTeam(server.rest, owner, [[await principalIdOf(server.gql, editor), 'member']])).id;
  shop = await createBlueprint(server.rest, owner, { name: 'Shop', modules: shopModules, steps: shopSteps });
  forks = [];
  for (let i = 0; i < 30; i++) forks.push(await fork(server.rest, stranger, shop.id));
});
afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

function ws(token?: string): WsClient {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client;
}

/** Consumes whatever the subscription has delivered until it stays quiet for `ms`. */
async function drain<T>(sub: Subscription<T>, ms = 250): Promise<void> {
  for (;;) {
    try {
      await sub.next(ms);
    } catch {
      return;
    }
  }
}

/** Pokes (a harmless layout write) until the subscription delivers, then drains: the subscription is live. */
async function live(sub: Subscription<ArchitectureChangedSubscription>, slug: string, nodeId: string, position: { x: number; y: number }): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    await server.rest.put(`/api/architectures/${slug}/layout`, { token: owner, body: [{ nodeId, position }] });
    try {
      await sub.next(250);
      await drain(sub);
      return;
    } catch {
      // not subscribed yet
    }
  }
  throw new Error('subscription never became live');
}

/** The next event that is not a late echo of the layout pokes `live` used (a loaded machine delivers late). */
async function nextChange(sub: Subscription<ArchitectureChangedSubscription>) {
  for (;;) {
    const event = await sub.next();
    if (event.data?.architectureChanged?.kind !== 'LAYOUT_UPDATED') return event;
  }
}

describe('zoom levels', () => {
  it('ecosystem: nodes with cards, module composition and positions, plus every edge', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Zoom' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const b = await addNode(server.rest, owner, arch.slug, { blueprint_id: forks[0].id, position_x: 500, position_y: 40 });
    const data = await server.gql.ok(ArchitectureEcosystemDocument, { slug: arch.slug });
    expect(data.architecture).toMatchObject({ slug: arch.slug, viewerCanEdit: false, owner: { id: ownerId }, team: null, teamId: null });
    expect(data.architecture!.nodes[0]).toEqual({
      id: a.id,
      blueprintId: shop.id,
      redacted: false,
      position: { x: 0, y: 0 },
      composition: [
        { kind: 'backend', count: 2 },
        { kind: 'data', count: 1 },
        { kind: 'frontend', count: 1 },
      ],
      card: { id: shop.id, slug: shop.slug, name: 'Shop', stars: 0, moduleCount: 4, stepCount: 5, successRate: null },
      blueprint: { id: shop.id, tags: [] },
    });
    expect(data.architecture!.nodes[1]!.position).toEqual({ x: 500, y: 40 });
    expect(data.architecture!.edges).toEqual([
      { id: `lineage:${a.id}:${b.id}`, source: a.id, target: b.id, edgeType: 'LINEAGE_FORK', label: null, computed: true },
    ]);
  });

  it('architecture: a node’s modules with levels and dependency edges', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Zoom two' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const data = await server.gql.ok(ArchitectureNodeModulesDocument, { slug: arch.slug, nodeId: a.id });
    expect(data.architecture!.node!.modules.map((m) => [m.key, m.kind, m.level, m.stepCount])).toEqual([
      ['web', 'frontend', 3, 1],
      ['api', 'backend', 2, 2],
      ['auth', 'backend', 1, 1],
      ['db', 'data', 0, 1],
    ]);
    expect(data.architecture!.node!.dependencies).toEqual([
      { source: 'web', target: 'api' },
      { source: 'api', target: 'db' },
      { source: 'api', target: 'auth' },
      { source: 'auth', target: 'db' },
    ]);
  });

  it('module detail: the module’s steps in swimlanes beside its dependencies and dependents', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Zoom three' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const data = await server.gql.ok(ArchitectureModuleDetailDocument, { slug: arch.slug, nodeId: a.id, key: 'api' });
    const detail = data.architecture!.node!.module!;
    expect(detail.module).toEqual({ key: 'api', stepCount: 2 });
    expect(detail.steps).toEqual([
      { key: 'routes', order: 3, title: 'Routes' },
      { key: 'tests', order: 5, title: 'API tests' },
    ]);
    expect(detail.swimlanes.map((l) => [l.moduleKey, l.relation, l.steps.map((s) => s.order)])).toEqual([
      ['api', 'MODULE', [3, 5]],
      ['db', 'DEPENDENCY', [1]],
      ['auth', 'DEPENDENCY', [2]],
      ['web', 'DEPENDENT', [4]],
    ]);
    const missing = await server.gql.ok(ArchitectureModuleDetailDocument, { slug: arch.slug, nodeId: a.id, key: 'nope' });
    expect(missing.architecture!.node!.module).toBeNull();
  });

  it('reads the ecosystem level with as many SQL statements for 30 nodes as for 3', async () => {
    const counts: number[] = [];
    for (const size of [3, 30]) {
      const arch = await createArchitecture(server.rest, owner, { name: `Batch ${size}` });
      const nodes = [await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id })];
      for (const f of forks.slice(0, size - 1)) nodes.push(await addNode(server.rest, owner, arch.slug, { blueprint_id: f.id }));
      for (let i = 1; i < nodes.length; i++)
        await server.rest.post(`/api/architectures/${arch.slug}/edges`, {
          token: owner,
          body: { source_node_id: nodes[i - 1].id, target_node_id: nodes[i].id, edge_type: 'api_call' },
        });
      for (const token of [owner, undefined]) {
        const res = await server.gql.request(ArchitectureEcosystemDocument, { slug: arch.slug }, token);
        expect(res.errors).toBeUndefined();
        expect(res.data!.architecture!.nodes).toHaveLength(size);
        expect(res.data!.architecture!.edges).toHaveLength(2 * (size - 1)); // manual chain + lineage from the root
        counts.push(res.sqlStatements);
      }
      const rest = await server.rest.get(`/api/architectures/${arch.slug}`, { token: owner });
      counts.push(Number(rest.headers.get('x-sql-statements')));
    }
    expect(counts.slice(3)).toEqual(counts.slice(0, 3));
    // REST: the token, then the architecture with its graph (nodes and both kinds of edges) in one
    // statement. The GraphQL document also reads the owner and the nodes' blueprints (a batch), and with a
    // token the viewer's teams (viewerCanEdit).
    expect(counts.slice(0, 3)).toEqual([5, 3, 2]);
  });
});

describe('mutations', () => {
  it('create, add nodes and edges, move, remove and transfer over GraphQL', async () => {
    const { gql } = server;
    const created = (await gql.ok(CreateArchitectureDocument, { input: { name: 'GraphQL arch', visibility: 'PRIVATE' } }, owner)).createArchitecture;
    expect(created).toMatchObject({ slug: 'graphql-arch', description: '', visibility: 'PRIVATE', owner: { id: ownerId }, nodes: [], edges: [] });
    const slug = created.slug;
    const a = (await gql.ok(AddArchitectureNodeDocument, { slug, input: { blueprintId: shop.id } }, owner)).addArchitectureNode;
    const b = (await gql.ok(AddArchitectureNodeDocument, { slug, input: { blueprintId: forks[1].id, position: { x: 900, y: 10 } } }, owner))
      .addArchitectureNode;
    expect(a).toMatchObject({ blueprintId: shop.id, redacted: false, position: { x: 0, y: 0 }, blueprint: { name: 'Shop' } });
    expect(b.position).toEqual({ x: 900, y: 10 });

    const edge = (
      await gql.ok(AddArchitectureEdgeDocument, { slug, input: { sourceNodeId: b.id, targetNodeId: a.id, edgeType: 'CUSTOM', label: 'syncs' } }, owner)
    ).addArchitectureEdge;
    expect(edge).toMatchObject({ source: b.id, target: a.id, edgeType: 'CUSTOM', label: 'syncs', computed: false });

    const before = await architectureState(server.databaseUrl, slug);
    const lineage = await gql.request(
      AddArchitectureEdgeDocument,
      { slug, input: { sourceNodeId: a.id, targetNodeId: b.id, edgeType: 'LINEAGE_FORK' } },
      owner,
    );
    expect(lineage.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unlabelled = await gql.request(AddArchitectureEdgeDocument, { slug, input: { sourceNodeId: a.id, targetNodeId: b.id, edgeType: 'CUSTOM' } }, owner);
    expect(unlabelled.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const badLayout = await gql.request(
      UpdateArchitectureLayoutDocument,
      {
        slug,
        layout: [
          { nodeId: a.id, position: { x: 1, y: 1 } },
          { nodeId: edge.id, position: { x: 2, y: 2 } },
        ],
      },
      owner,
    );
    expect(badLayout.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const removeLineage = await gql.request(RemoveArchitectureEdgeDocument, { slug, edgeId: `lineage:${a.id}:${b.id}` }, owner);
    expect(removeLineage.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const byStranger = await gql.request(AddArchitectureNodeDocument, { slug, input: { blueprintId: forks[2].id } }, stranger);
    expect(byStranger.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const anonymous = await gql.request(AddArchitectureNodeDocument, { slug, input: { blueprintId: forks[2].id } });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await architectureState(server.databaseUrl, slug)).toEqual(before);

    const moved = (await gql.ok(UpdateArchitectureLayoutDocument, { slug, layout: [{ nodeId: a.id, position: { x: -5, y: 2.5 } }] }, owner))
      .updateArchitectureLayout;
    expect(moved.nodes.map((n) => n.position)).toEqual([
      { x: -5, y: 2.5 },
      { x: 900, y: 10 },
    ]);
    const withoutEdge = (await gql.ok(RemoveArchitectureEdgeDocument, { slug, edgeId: edge.id }, owner)).removeArchitectureEdge;
    expect(withoutEdge.edges.map((e) => e.id)).toEqual([`lineage:${a.id}:${b.id}`]);
    const withoutNode = (await gql.ok(RemoveArchitectureNodeDocument, { slug, nodeId: b.id }, owner)).removeArchitectureNode;
    expect(withoutNode).toEqual({ nodes: [{ id: a.id }], edges: [] });
    const transferred = (await gql.ok(TransferArchitectureDocument, { slug, teamId }, owner)).transferArchitecture;
    expect(transferred).toEqual({ slug, teamId, team: { id: teamId } });
  });

  it('lists public architectures as a connection, anonymously', async () => {
    await createArchitecture(server.rest, owner, { name: 'Conn private', visibility: 'private' });
    const first = await server.gql.ok(PublicArchitecturesDocument, { first: 2 });
    expect(first.architectures.edges).toHaveLength(2);
    expect(first.architectures.pageInfo.hasNextPage).toBe(first.architectures.totalCount > 2);
    const rest = await server.gql.ok(PublicArchitecturesDocument, { first: 100, after: first.architectures.pageInfo.endCursor });
    const all = [...first.architectures.edges, ...rest.architectures.edges];
    expect(all).toHaveLength(first.architectures.totalCount);
    expect(all.every((e) => e.node.visibility === 'PUBLIC')).toBe(true);
    expect((await server.gql.request(PublicArchitecturesDocument, { first: 101 })).errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('architectureChanged', () => {
  it('pushes each editor’s changes to the other, live', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Live', visibility: 'private' });
    await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner, body: { team_id: teamId } });
    const anchor = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const ownerSub = ws(owner).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    const editorSub = ws(editor).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await live(ownerSub, arch.slug, anchor.id, { x: 0, y: 0 });
    await live(editorSub, arch.slug, anchor.id, { x: 0, y: 0 });
    await drain(ownerSub);
    // The editor may have been live for the owner's probe too; on a loaded machine its echo can come late.
    await drain(editorSub);

    // The editor adds a node and moves it: the owner sees both.
    const node = await addNode(server.rest, editor, arch.slug, { blueprint_id: forks[3].id });
    const added = (await ownerSub.next()).data!.architectureChanged;
    expect(added).toMatchObject({ kind: 'NODE_ADDED', subjectId: node.id, architecture: { slug: arch.slug } });
    expect(added.architecture.nodes.map((n) => n.id)).toEqual([anchor.id, node.id]);
    await server.gql.ok(UpdateArchitectureLayoutDocument, { slug: arch.slug, layout: [{ nodeId: node.id, position: { x: 321, y: 654 } }] }, editor);
    const moved = (await ownerSub.next()).data!.architectureChanged;
    expect(moved.kind).toBe('LAYOUT_UPDATED');
    expect(moved.architecture.nodes.find((n) => n.id === node.id)!.position).toEqual({ x: 321, y: 654 });

    // The owner draws and removes an edge: the editor sees both, and who did it.
    const edge = await server.rest.post(`/api/architectures/${arch.slug}/edges`, {
      token: owner,
      body: { source_node_id: node.id, target_node_id: anchor.id, edge_type: 'event' },
    });
    expect((await editorSub.next()).data!.architectureChanged).toMatchObject({ kind: 'NODE_ADDED', subjectId: node.id });
    expect((await editorSub.next()).data!.architectureChanged.kind).toBe('LAYOUT_UPDATED');
    const drawn = (await editorSub.next()).data!.architectureChanged;
    expect(drawn).toMatchObject({ kind: 'EDGE_ADDED', subjectId: edge.body.id, actor: { id: ownerId } });
    expect(drawn.architecture.edges.map((e) => e.edgeType)).toContain('EVENT');
    await server.rest.delete(`/api/architectures/${arch.slug}/edges/${edge.body.id}`, { token: owner });
    expect((await editorSub.next()).data!.architectureChanged).toMatchObject({ kind: 'EDGE_REMOVED', subjectId: edge.body.id });
    await server.rest.delete(`/api/architectures/${arch.slug}/nodes/${node.id}`, { token: owner });
    expect((await editorSub.next()).data!.architectureChanged).toMatchObject({ kind: 'NODE_REMOVED', subjectId: node.id });
    for (const kind of ['EDGE_ADDED', 'EDGE_REMOVED', 'NODE_REMOVED']) expect((await ownerSub.next()).data!.architectureChanged.kind).toBe(kind);

    // A refused edit publishes nothing.
    await server.rest.post(`/api/architectures/${arch.slug}/edges`, {
      token: owner,
      body: { source_node_id: anchor.id, target_node_id: anchor.id, edge_type: 'lineage_fork' },
    });
    expect(await editorSub.nothingWithin(400)).toBe(true);
  });

  it('refuses a subscription to a private architecture from others, and serves public ones anonymously', async () => {
    const priv = await createArchitecture(server.rest, owner, { name: 'Sub private', visibility: 'private' });
    const refused = ws(stranger).subscribe(ArchitectureChangedDocument, { slug: priv.slug });
    const first = await refused.next();
    expect(first.errors?.[0]?.extensions?.code ?? (first.errors?.[0] as { message?: string })?.message).toMatch(/NOT_FOUND|not found/);

    const pub = await createArchitecture(server.rest, owner, { name: 'Sub public' });
    const anchor = await addNode(server.rest, owner, pub.slug, { blueprint_id: shop.id });
    const watcher = ws().subscribe(ArchitectureChangedDocument, { slug: pub.slug });
    await live(watcher, pub.slug, anchor.id, { x: 3, y: 3 });
    await addNode(server.rest, owner, pub.slug, { blueprint_id: forks[4].id });
    expect((await watcher.next()).data!.architectureChanged.kind).toBe('NODE_ADDED');
  });

  it('ends the stream with NOT_FOUND, without the event, for a subscriber who lost access through a transfer', async () => {
    const otherTeam = (await createTeam(server.rest, owner, [], 'Elsewhere')).id;
    const arch = await createArchitecture(server.rest, owner, { name: 'Sub transfer', visibility: 'private' });
    await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner, body: { team_id: teamId } });
    const anchor = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const ownerSub = ws(owner).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    const editorSub = ws(editor).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await live(ownerSub, arch.slug, anchor.id, { x: 0, y: 0 });
    await live(editorSub, arch.slug, anchor.id, { x: 0, y: 0 });
    await drain(ownerSub);
    // The editor may have been live for the owner's probe too; on a loaded machine its echo can come late.
    await drain(editorSub);

    await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner, body: { team_id: otherTeam } });
    expect((await nextChange(ownerSub)).data!.architectureChanged).toMatchObject({ kind: 'TRANSFERRED', subjectId: otherTeam });
    const ended = await nextChange(editorSub);
    expect(ended.data?.architectureChanged ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await addNode(server.rest, owner, arch.slug, { blueprint_id: forks[5].id });
    expect((await ownerSub.next()).data!.architectureChanged.kind).toBe('NODE_ADDED');
    expect(await editorSub.nothingWithin(500)).toBe(true);
  });

  it("ends the stream with UNAUTHENTICATED, without the event, once the subscriber's token is revoked", async () => {
    const watcher = await server.rest.agentToken('architecture watcher to revoke');
    const arch = await createArchitecture(server.rest, owner, { name: 'Watched by a revoked token' });
    const anchor = await addNode(server.rest, owner, arch.slug, { blueprint_id: shop.id });
    const sub = ws(watcher).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await live(sub, arch.slug, anchor.id, { x: 7, y: 7 });
    await drain(sub);
    await server.rest.delete('/api/agent/sessions/current', { token: watcher });
    await addNode(server.rest, owner, arch.slug, { blueprint_id: forks[6].id });
    const ended = await nextChange(sub);
    expect(ended.data?.architectureChanged ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await sub.nothingWithin(300)).toBe(true);
  });
});
