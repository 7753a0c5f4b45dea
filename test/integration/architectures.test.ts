import { overlaps } from '../../src/architectures/layout';
import { addEdge, addNode, architectureState, createArchitecture, sql } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let owner: string;
let other: string;
let base: any; // public, owned by `owner`
let forkOfBase: any; // public fork of base
let othersPrivate: any; // private, owned by `other`
let extra: any[]; // public forks of base, made by `other`

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('owner');
  other = await server.rest.agentToken('other');
  base = await createBlueprint(server.rest, owner, { name: 'Base' });
  forkOfBase = await fork(server.rest, owner, base.id);
  othersPrivate = await createBlueprint(server.rest, other, { name: 'Secret', visibility: 'private' });
  extra = [];
  for (let i = 0; i < 5; i++) extra.push(await fork(server.rest, other, base.id));
});
afterAll(() => server.close());

const archCount = async () => (await sql(server.databaseUrl, 'select count(*)::int as n from architecture'))[0].n;

describe('POST /api/architectures', () => {
  it('creates an empty architecture owned by the caller, with a slug from its name', async () => {
    const res = await server.rest.post('/api/architectures', { token: owner, body: { name: 'Payments Platform!', visibility: 'public' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'payments-platform',
      name: 'Payments Platform!',
      description: '',
      visibility: 'public',
      team_id: null,
      nodes: [],
      edges: [],
    });
    expect(res.body.owner_id).toBe((await sql(server.databaseUrl, 'select owner_id from architecture where slug = $1', ['payments-platform']))[0].owner_id);
  });

  it('suffixes the slug when the name is taken', async () => {
    const first = await createArchitecture(server.rest, owner, { name: 'Same Name' });
    const second = await createArchitecture(server.rest, other, { name: 'Same Name', description: 'again' });
    expect(first.slug).toBe('same-name');
    expect(second.slug).toMatch(/^same-name-[0-9a-f]{6}$/);
    expect(second.description).toBe('again');
  });

  it.each([
    ['no name', { visibility: 'public' }, 'body/name'],
    ['a blank name', { name: '  ', visibility: 'public' }, 'body/name'],
    ['no visibility', { name: 'x' }, 'body/visibility'],
    ['an unknown visibility', { name: 'x', visibility: 'secret' }, 'body/visibility'],
    ['a description that is not a string', { name: 'x', visibility: 'public', description: 3 }, 'body/description'],
    ['an unknown property', { name: 'x', visibility: 'public', nodes: [] }, 'body/nodes'],
  ])('rejects %s with 400 naming the path, and writes nothing', async (_what, body, path) => {
    const before = await archCount();
    const res = await server.rest.post('/api/architectures', { token: owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await archCount()).toBe(before);
  });

  it('rejects malformed JSON with 400 and anonymous callers with 401', async () => {
    const before = await archCount();
    expect((await server.rest.post('/api/architectures', { token: owner, rawBody: '{"name": ' })).status).toBe(400);
    expect((await server.rest.post('/api/architectures', { body: { name: 'x', visibility: 'public' } })).status).toBe(401);
    expect(await archCount()).toBe(before);
  });
});

describe('GET /api/architectures', () => {
  it('pages through public architectures, newest first, without authentication', async () => {
    const mine = [];
    for (const name of ['List A', 'List B', 'List C']) mine.push(await createArchitecture(server.rest, owner, { name }));
    await createArchitecture(server.rest, owner, { name: 'List Private', visibility: 'private' });
    const publicCount = (await sql(server.databaseUrl, `select count(*)::int as n from architecture where visibility = 'public'`))[0].n;

    const page = await server.rest.get('/api/architectures?limit=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: publicCount, limit: 2, offset: 0 });
    expect(page.body.items.map((a: { slug: string }) => a.slug)).toEqual(['list-c', 'list-b']);
    expect(page.body.items[0]).toMatchObject({ visibility: 'public', node_count: 0, edge_count: 0 });

    const next = await server.rest.get('/api/architectures?limit=2&offset=2');
    expect(next.body.items[0].slug).toBe('list-a');

    const all = await server.rest.get('/api/architectures?limit=100', { token: owner });
    expect(all.body.items.map((a: { visibility: string }) => a.visibility).every((v: string) => v === 'public')).toBe(true);
    expect(all.body.items.map((a: { slug: string }) => a.slug)).not.toContain('list-private');

    const beyond = await server.rest.get('/api/architectures?offset=1000');
    expect(beyond.body).toMatchObject({ items: [], total: publicCount });
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=abc'])('rejects %s with 400', async (query) => {
    const res = await server.rest.get(`/api/architectures?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /api/architectures/:slug', () => {
  it('shows a public architecture to anyone, a private one only to its owner (404 to others)', async () => {
    const pub = await createArchitecture(server.rest, owner, { name: 'Get Public' });
    const priv = await createArchitecture(server.rest, owner, { name: 'Get Private', visibility: 'private' });
    expect((await server.rest.get(`/api/architectures/${pub.slug}`)).status).toBe(200);
    expect((await server.rest.get(`/api/architectures/${priv.slug}`, { token: owner })).status).toBe(200);
    for (const token of [other, undefined]) {
      const res = await server.rest.get(`/api/architectures/${priv.slug}`, { token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await server.rest.get('/api/architectures/no-such-thing')).status).toBe(404);
  });
});

describe('POST /api/architectures/:slug/nodes', () => {
  it('places nodes without a position on the grid, clear of every node, hand-placed ones included', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Grid' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const b = await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    expect([a.position_x, a.position_y]).toEqual([0, 0]);
    expect([b.position_x, b.position_y]).toEqual([280, 0]);
    // A hand-placed node straddling the next free cells.
    const manual = await addNode(server.rest, owner, arch.slug, { blueprint_id: extra[0].id, position_x: 600, position_y: 20 });
    expect([manual.position_x, manual.position_y]).toEqual([600, 20]);
    const later = [];
    for (const bp of extra.slice(1)) later.push(await addNode(server.rest, owner, arch.slug, { blueprint_id: bp.id }));
    const body = (await server.rest.get(`/api/architectures/${arch.slug}`)).body;
    const points = body.nodes.map((n: any) => ({ x: n.position_x, y: n.position_y }));
    for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) expect(overlaps(points[i], points[j])).toBe(false);
    expect(body.nodes.map((n: any) => n.id)).toEqual([a.id, b.id, manual.id, ...later.map((n) => n.id)]);
  });

  it('keeps concurrent automatic placements apart (adds to one architecture run one after the other)', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Concurrent grid' });
    const results = await Promise.all(
      [base, forkOfBase, ...extra].map((bp) => server.rest.post(`/api/architectures/${arch.slug}/nodes`, { token: owner, body: { blueprint_id: bp.id } })),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const points = results.map((r) => ({ x: r.body.position_x, y: r.body.position_y }));
    for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) expect(overlaps(points[i]!, points[j]!)).toBe(false);
  });

  it('answers the node with its blueprint card', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Card' });
    const node = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id, position_x: -10.5, position_y: 99 });
    expect(node).toEqual({
      id: expect.any(String),
      blueprint_id: base.id,
      position_x: -10.5,
      position_y: 99,
      blueprint: {
        id: base.id,
        slug: base.slug,
        name: 'Base',
        stars: 0,
        module_count: 3,
        step_count: 3,
        success_rate: null,
        review_count: 0,
        rating_average: null,
      },
      redacted: false,
    });
  });

  it.each([
    ['only position_x', () => ({ blueprint_id: base.id, position_x: 5 }), 400, 'body/position_y'],
    ['only position_y', () => ({ blueprint_id: base.id, position_y: 5 }), 400, 'body/position_x'],
    ['a position out of range', () => ({ blueprint_id: base.id, position_x: 1e9, position_y: 0 }), 400, 'body/position_x'],
    ['a string position', () => ({ blueprint_id: base.id, position_x: '1', position_y: 0 }), 400, 'body/position_x'],
    ['no blueprint_id', () => ({}), 400, 'body/blueprint_id'],
    ['a blueprint_id that is not a UUID', () => ({ blueprint_id: 'base' }), 400, 'body/blueprint_id'],
    ['an unknown property', () => ({ blueprint_id: base.id, x: 1 }), 400, 'body/x'],
    ['a blueprint the caller may not read', () => ({ blueprint_id: othersPrivate.id }), 404, null],
    ['a blueprint that does not exist', () => ({ blueprint_id: '00000000-0000-4000-8000-000000000000' }), 404, null],
  ] as const)('rejects %s and writes nothing', async (_what, body, status, path) => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Node rejections' });
    await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/nodes`, { token: owner, body: body() });
    expect(res.status).toBe(status);
    if (path) expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it('refuses a blueprint that is already on the architecture with 409 naming its node', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Twice' });
    const node = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/nodes`, { token: owner, body: { blueprint_id: base.id } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { node_id: node.id } });
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it('is 404 for an unknown architecture', async () => {
    expect((await server.rest.post('/api/architectures/nope/nodes', { token: owner, body: { blueprint_id: base.id } })).status).toBe(404);
  });
});

describe('PUT /api/architectures/:slug/layout', () => {
  async function threeNodes(name: string) {
    const arch = await createArchitecture(server.rest, owner, { name });
    const nodes = [];
    for (const bp of extra.slice(0, 3)) nodes.push(await addNode(server.rest, owner, arch.slug, { blueprint_id: bp.id }));
    return { arch, nodes };
  }

  it('moves several nodes at once and answers the architecture', async () => {
    const { arch, nodes } = await threeNodes('Layout');
    const res = await server.rest.put(`/api/architectures/${arch.slug}/layout`, {
      token: owner,
      body: [
        { nodeId: nodes[0]!.id, position: { x: 1000, y: 50.25 } },
        { nodeId: nodes[2]!.id, position: { x: -40, y: 0 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.nodes.map((n: any) => [n.position_x, n.position_y])).toEqual([
      [1000, 50.25],
      [nodes[1]!.position_x, nodes[1]!.position_y],
      [-40, 0],
    ]);
  });

  it('accepts an empty layout as a no-op', async () => {
    const { arch } = await threeNodes('Layout empty');
    const before = await architectureState(server.databaseUrl, arch.slug);
    expect((await server.rest.put(`/api/architectures/${arch.slug}/layout`, { token: owner, body: [] })).status).toBe(200);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it.each([
    [
      'an unknown node id',
      (n: any[]) => [
        { nodeId: n[0].id, position: { x: 1, y: 1 } },
        { nodeId: '00000000-0000-4000-8000-000000000000', position: { x: 2, y: 2 } },
      ],
      'body/1/nodeId',
    ],
    [
      'a node id that is not a UUID',
      (n: any[]) => [
        { nodeId: n[0].id, position: { x: 1, y: 1 } },
        { nodeId: 'n2', position: { x: 2, y: 2 } },
      ],
      'body/1/nodeId',
    ],
    [
      'a node listed twice',
      (n: any[]) => [
        { nodeId: n[0].id, position: { x: 1, y: 1 } },
        { nodeId: n[0].id, position: { x: 2, y: 2 } },
      ],
      'body/1/nodeId',
    ],
    ['a missing position', (n: any[]) => [{ nodeId: n[0].id, position: { x: 1, y: 1 } }, { nodeId: n[1].id }], 'body/1/position'],
    [
      'a coordinate that is not a number',
      (n: any[]) => [
        { nodeId: n[0].id, position: { x: 1, y: 1 } },
        { nodeId: n[1].id, position: { x: '2', y: 2 } },
      ],
      'body/1/position/x',
    ],
    ['snake_case keys', (n: any[]) => [{ node_id: n[0].id, position: { x: 1, y: 1 } }], 'body/0/nodeId'],
    ['an object instead of an array', (n: any[]) => ({ nodeId: n[0].id, position: { x: 1, y: 1 } }), 'body'],
  ])('rejects %s with 400 and moves no node', async (_what, body, path) => {
    const { arch, nodes } = await threeNodes('Layout rejections');
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.put(`/api/architectures/${arch.slug}/layout`, { token: owner, body: body(nodes) });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it('rejects a node of another architecture and moves nothing in either', async () => {
    const one = await threeNodes('Layout one');
    const two = await threeNodes('Layout two');
    const before = [await architectureState(server.databaseUrl, one.arch.slug), await architectureState(server.databaseUrl, two.arch.slug)];
    const res = await server.rest.put(`/api/architectures/${one.arch.slug}/layout`, {
      token: owner,
      body: [
        { nodeId: one.nodes[0]!.id, position: { x: 9, y: 9 } },
        { nodeId: two.nodes[0]!.id, position: { x: 9, y: 9 } },
      ],
    });
    expect(res.status).toBe(400);
    expect([await architectureState(server.databaseUrl, one.arch.slug), await architectureState(server.databaseUrl, two.arch.slug)]).toEqual(before);
  });
});

describe('GET /api/architectures/:slug/export', () => {
  it('exports Mermaid, DOT and JSON (the default), anonymously for a public architecture', async () => {
    const arch = await createArchitecture(server.rest, owner, { name: 'Export me' });
    const a = await addNode(server.rest, owner, arch.slug, { blueprint_id: base.id });
    const b = await addNode(server.rest, owner, arch.slug, { blueprint_id: forkOfBase.id });
    await addEdge(server.rest, owner, arch.slug, { source_node_id: b.id, target_node_id: a.id, edge_type: 'api_call', label: 'REST' });

    const mermaid = await server.rest.get(`/api/architectures/${arch.slug}/export?format=mermaid`);
    expect(mermaid.status).toBe(200);
    expect(mermaid.headers.get('content-type')).toMatch(/^text\/vnd\.mermaid/);
    expect(mermaid.body).toContain('flowchart LR');
    expect(mermaid.body).toContain('n2 -->|api_call: REST| n1');
    expect(mermaid.body).toContain('n1 -.->|lineage_fork| n2');

    const dot = await server.rest.get(`/api/architectures/${arch.slug}/export?format=dot`);
    expect(dot.headers.get('content-type')).toMatch(/^text\/vnd\.graphviz/);
    expect(dot.body).toContain(`"${b.id}" -> "${a.id}" [label="api_call: REST"];`);

    const json = await server.rest.get(`/api/architectures/${arch.slug}/export`);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body).toEqual((await server.rest.get(`/api/architectures/${arch.slug}`)).body);
  });

  it('rejects an unknown format with 400 and hides private architectures (404)', async () => {
    const pub = await createArchitecture(server.rest, owner, { name: 'Export formats' });
    const bad = await server.rest.get(`/api/architectures/${pub.slug}/export?format=svg`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('format');
    const priv = await createArchitecture(server.rest, owner, { name: 'Export private', visibility: 'private' });
    expect((await server.rest.get(`/api/architectures/${priv.slug}/export?format=dot`, { token: other })).status).toBe(404);
    expect((await server.rest.get(`/api/architectures/${priv.slug}/export?format=dot`)).status).toBe(404);
    expect((await server.rest.get(`/api/architectures/${priv.slug}/export?format=dot`, { token: owner })).status).toBe(200);
  });
});

describe('limits', () => {
  it('refuses a node beyond the architecture node limit with 400 and writes nothing', async () => {
    const small = await startTestServer({ limits: { architectureMaxNodes: 2, architectureMaxEdges: 1 } });
    try {
      const token = await small.rest.agentToken();
      const bps = [];
      for (let i = 0; i < 3; i++) bps.push(await createBlueprint(small.rest, token, { name: `Small ${i}` }));
      const arch = await createArchitecture(small.rest, token, { name: 'Small' });
      const a = await addNode(small.rest, token, arch.slug, { blueprint_id: bps[0].id });
      const b = await addNode(small.rest, token, arch.slug, { blueprint_id: bps[1].id });
      await addEdge(small.rest, token, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'auth' });
      const before = await architectureState(small.databaseUrl, arch.slug);
      const node = await small.rest.post(`/api/architectures/${arch.slug}/nodes`, { token, body: { blueprint_id: bps[2].id } });
      expect(node.status).toBe(400);
      expect(node.body.error.message).toMatch(/maximum of 2 nodes/);
      const edge = await small.rest.post(`/api/architectures/${arch.slug}/edges`, {
        token,
        body: { source_node_id: b.id, target_node_id: a.id, edge_type: 'auth' },
      });
      expect(edge.status).toBe(400);
      expect(edge.body.error.message).toMatch(/maximum of 1 edges/);
      expect(await architectureState(small.databaseUrl, arch.slug)).toEqual(before);
    } finally {
      await small.close();
    }
  });
});
