import { randomUUID } from 'node:crypto';
import { ForkBlueprintDocument, ForkCountDocument, ForkedFromDocument, ForksDocument, LineageDocument, RelativesDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import type { AgentSession } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let sql: SqlClient;

type Agent = AgentSession;
const agent = (name: string): Promise<Agent> => server.rest.agentSession(name);

let owner: Agent;
let forker: Agent;
let stranger: Agent;
let source: any;
let privateBp: any;

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  sql = await SqlClient.connect(server.databaseUrl);
  [owner, forker, stranger] = await Promise.all([agent('owner'), agent('forker'), agent('stranger')]);
  source = await createBlueprint(server.rest, owner.token, {
    name: 'Invoice App',
    description: 'Invoices for small shops',
    tags: ['saas', 'api'],
    configuration: { language: 'typescript' },
    design_system: { font: 'Inter' },
  });
  privateBp = await createBlueprint(server.rest, owner.token, { name: 'Private Root', visibility: 'private' });
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

const versions = (id: string) => sql.query('select number, cause, author_id, changes from blueprint_version where blueprint_id = $1 order by number', [id]);

describe('POST /api/blueprints/:id/fork', () => {
  it('copies the plan only, with its own id and slug, owned by the caller, counters at zero, version 1 caused by the fork', async () => {
    const starrer = await agent('starrer');
    await server.rest.post(`/api/blueprints/${source.id}/star`, { token: starrer.token });
    // History the fork must not inherit: runs that ended.
    await sql.query('update blueprint set executions_started = 4, executions_completed = 3, executions_failed = 1 where id = $1', [source.id]);
    const before = (await server.rest.get(`/api/blueprints/${source.id}`, { token: reader })).body;
    expect(before.success_rate).toBe(0.75);

    const res = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token });
    expect(res.status).toBe(201);
    const f = res.body;
    expect(f.id).not.toBe(source.id);
    expect(f.slug).not.toBe(source.slug);
    expect(f.slug).toMatch(/^invoice-app-[0-9a-f]{6}$/);
    expect(f).toMatchObject({
      name: 'Invoice App',
      description: 'Invoices for small shops',
      tags: ['saas', 'api'],
      visibility: 'public',
      owner_id: forker.id,
      team_id: null,
      forked_from: { id: source.id, slug: source.slug, name: 'Invoice App' },
      stars: 0,
      forks_count: 0,
      success_rate: null,
      module_count: source.module_count,
      step_count: source.step_count,
    });
    for (const key of ['modules', 'steps', 'configuration', 'design_system'] as const) expect(f[key]).toEqual(source[key]);
    const counters = await sql.query(
      'select stars_count, forks_count, executions_started, executions_completed, executions_failed, executions_abandoned from blueprint where id = $1',
      [f.id],
    );
    expect(counters[0]).toEqual({
      stars_count: 0,
      forks_count: 0,
      executions_started: 0,
      executions_completed: 0,
      executions_failed: 0,
      executions_abandoned: 0,
    });
    expect(await sql.query('select 1 from star where blueprint_id = $1', [f.id])).toEqual([]);

    const forkVersions = await versions(f.id);
    expect(forkVersions).toEqual([{ number: 1, cause: 'fork', author_id: forker.id, changes: { forked_from: source.id, parent_version: 1 } }]);
    const links = await sql.query('select parent_id, child_id, kind from lineage_link where child_id = $1', [f.id]);
    expect(links).toEqual([{ parent_id: source.id, child_id: f.id, kind: 'fork' }]);

    const after = (await server.rest.get(`/api/blueprints/${source.id}`, { token: reader })).body;
    expect(after.forks_count).toBe(before.forks_count + 1);
    expect(after.stars).toBe(before.stars);
  });

  it('forks by slug too, and a fork of a fork points at its direct source', async () => {
    const first = await fork(server.rest, forker.token, source.slug);
    expect(first.forked_from.id).toBe(source.id);
    const second = await fork(server.rest, stranger.token, first.id);
    expect(second.forked_from).toEqual({ id: first.id, slug: first.slug, name: first.name });
    expect(second.owner_id).toBe(stranger.id);
    expect((await server.rest.get(`/api/blueprints/${first.id}`, { token: reader })).body.forks_count).toBe(1);
  });

  it('lets the owner fork their own private blueprint; the fork stays private', async () => {
    const f = await fork(server.rest, owner.token, privateBp.id);
    expect(f.visibility).toBe('private');
    expect(f.forked_from.id).toBe(privateBp.id);
    expect((await server.rest.get(`/api/blueprints/${f.id}`, { token: stranger.token })).status).toBe(404);
  });

  it('counts concurrent forks exactly and gives each its own slug, with more forks in flight than pooled connections', async () => {
    const target = await createBlueprint(server.rest, owner.token, { name: 'Popular' });
    const forks = await Promise.all(Array.from({ length: 30 }, () => fork(server.rest, forker.token, target.id)));
    expect(new Set(forks.map((f) => f.slug)).size).toBe(30);
    expect((await server.rest.get(`/api/blueprints/${target.id}`, { token: reader })).body.forks_count).toBe(30);
    expect((await server.rest.get(`/api/blueprints/${target.id}/forks?limit=100`, { token: reader })).body.total).toBe(30);
  });

  it('rejects an anonymous fork with 401 and writes nothing', async () => {
    const before = await sql.snapshot();
    const res = await server.rest.post(`/api/blueprints/${source.id}/fork`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    const gql = await server.gql.request(ForkBlueprintDocument, { id: source.id });
    expect(gql.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await sql.snapshot()).toEqual(before);
  });

  it('answers 404 for a fork of a foreign private blueprint (by id or slug) or an unknown one, and writes nothing', async () => {
    const before = await sql.snapshot();
    for (const id of [privateBp.id, privateBp.slug, randomUUID(), 'no-such-blueprint']) {
      const res = await server.rest.post(`/api/blueprints/${id}/fork`, { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const gql = await server.gql.request(ForkBlueprintDocument, { id: privateBp.id }, stranger.token);
    expect(gql.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await sql.snapshot()).toEqual(before);
  });

  it('answers 403 to a team member forking a private team blueprint they may only read, and writes nothing', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Team Secret', visibility: 'private' });
    const member = await agent('member');
    const teamId = randomUUID();
    await sql.query("insert into team (id, name) values ($1, 'Acme')", [teamId]);
    await sql.query("insert into team_member (team_id, principal_id, role) values ($1, $2, 'member')", [teamId, member.id]);
    await sql.query('update blueprint set team_id = $1 where id = $2', [teamId, bp.id]);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: member.token })).status).toBe(200);
    const before = await sql.snapshot();
    const res = await server.rest.post(`/api/blueprints/${bp.id}/fork`, { token: member.token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await sql.snapshot()).toEqual(before);
  });

  it('forks through GraphQL with the same rules', async () => {
    const { forkBlueprint } = await server.gql.ok(ForkBlueprintDocument, { id: source.id }, stranger.token);
    expect(forkBlueprint).toMatchObject({ name: 'Invoice App', stars: 0, forkedFrom: { id: source.id }, owner: { id: stranger.id } });
    expect(forkBlueprint.id).not.toBe(source.id);
  });
});

describe('GET /api/blueprints/:id/forks', () => {
  let root: any;
  let publicForks: any[];
  let hiddenFork: any;

  beforeAll(async () => {
    root = await createBlueprint(server.rest, owner.token, { name: 'Fork Root' });
    publicForks = [];
    for (let i = 0; i < 3; i++) publicForks.push(await fork(server.rest, forker.token, root.id));
    hiddenFork = await fork(server.rest, stranger.token, root.id);
    // Its owner made it private later: it must drop out of every list for everyone.
    await sql.query("update blueprint set visibility = 'private' where id = $1", [hiddenFork.id]);
  });

  it('lists public forks only, oldest first, as {items, total, limit, offset}', async () => {
    for (const token of [reader, stranger.token]) {
      const res = await server.rest.get(`/api/blueprints/${root.id}/forks`, { token });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(3);
      expect(res.body.limit).toBe(20);
      expect(res.body.offset).toBe(0);
      expect(res.body.items.map((f: any) => f.id)).toEqual(publicForks.map((f) => f.id));
      expect(res.body.items[0].forked_from.id).toBe(root.id);
    }
  });

  it('pages with limit and offset', async () => {
    const res = await server.rest.get(`/api/blueprints/${root.slug}/forks?limit=2&offset=1`, { token: reader });
    expect(res.body).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(res.body.items.map((f: any) => f.id)).toEqual(publicForks.slice(1, 3).map((f) => f.id));
    const past = await server.rest.get(`/api/blueprints/${root.id}/forks?offset=10`, { token: reader });
    expect(past.body).toMatchObject({ items: [], total: 3, offset: 10 });
  });

  it.each([
    ['limit=101'],
    ['limit=0'],
    ['limit=-1'],
    ['offset=-1'],
    ['limit=abc'],
    ['limit=1.5'],
    ['offset=2e3'],
    ['offset=99999999999999999999'],
    ['limit=1&limit=2'],
  ])('rejects %s with 400 VALIDATION_FAILED naming the parameter', async (query) => {
    const res = await server.rest.get(`/api/blueprints/${root.id}/forks?${query}`, { token: reader });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.body.error.details?.issues ?? res.body.error.message)).toMatch(/limit|offset/);
  });

  it('answers 404 for the forks of a foreign private blueprint or an unknown one', async () => {
    for (const token of [reader, stranger.token]) {
      for (const id of [privateBp.id, privateBp.slug, randomUUID()]) {
        const res = await server.rest.get(`/api/blueprints/${id}/forks`, { token });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    expect((await server.rest.get(`/api/blueprints/${privateBp.id}/forks`, { token: owner.token })).status).toBe(200);
  });
});

describe('GET /api/blueprints/:id/lineage', () => {
  it('lists parents and children as cards, and hides private relatives from callers who may not see them', async () => {
    const root = await createBlueprint(server.rest, owner.token, { name: 'Lineage Root' });
    const a = await fork(server.rest, forker.token, root.id);
    const hidden = await fork(server.rest, stranger.token, root.id);
    await sql.query("update blueprint set visibility = 'private' where id = $1", [hidden.id]);

    const res = await server.rest.get(`/api/blueprints/${root.id}/lineage`, { token: reader });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      blueprint_id: root.id,
      parents: [],
      children: [
        {
          kind: 'fork',
          blueprint: {
            id: a.id,
            slug: a.slug,
            name: 'Lineage Root',
            stars: 0,
            module_count: 3,
            step_count: 3,
            success_rate: null,
            review_count: 0,
            rating_average: null,
          },
        },
      ],
    });
    const asHiddenOwner = await server.rest.get(`/api/blueprints/${root.id}/lineage`, { token: stranger.token });
    expect(asHiddenOwner.body.children.map((c: any) => c.blueprint.id)).toEqual([a.id, hidden.id]);

    const up = await server.rest.get(`/api/blueprints/${a.slug}/lineage`, { token: reader });
    expect(up.body.parents).toEqual([{ kind: 'fork', blueprint: expect.objectContaining({ id: root.id, slug: root.slug }) }]);
    expect(up.body.children).toEqual([]);
  });

  it('hides a private parent from others while its public child stays visible', async () => {
    const child = await fork(server.rest, owner.token, privateBp.id);
    await sql.query("update blueprint set visibility = 'public' where id = $1", [child.id]);
    const asStranger = await server.rest.get(`/api/blueprints/${child.id}/lineage`, { token: stranger.token });
    expect(asStranger.status).toBe(200);
    expect(asStranger.body.parents).toEqual([]);
    expect((await server.rest.get(`/api/blueprints/${child.id}`, { token: reader })).body.forked_from).toBeNull();
    const asOwner = await server.rest.get(`/api/blueprints/${child.id}/lineage`, { token: owner.token });
    expect(asOwner.body.parents.map((p: any) => p.blueprint.id)).toEqual([privateBp.id]);
    expect((await server.gql.ok(ForkedFromDocument, { id: child.id }, stranger.token)).blueprint?.forkedFrom).toBeNull();
    expect((await server.gql.ok(ForkedFromDocument, { id: child.id }, owner.token)).blueprint?.forkedFrom?.id).toBe(privateBp.id);
  });

  it('shows breed parents and offspring with kind breed', async () => {
    const p1 = await createBlueprint(server.rest, owner.token, { name: 'Parent One' });
    const p2 = await createBlueprint(server.rest, owner.token, { name: 'Parent Two' });
    const child = await createBlueprint(server.rest, owner.token, { name: 'Offspring' });
    for (const p of [p1, p2])
      await sql.query("insert into lineage_link (id, parent_id, child_id, kind) values ($1, $2, $3, 'breed')", [randomUUID(), p.id, child.id]);
    const res = await server.rest.get(`/api/blueprints/${child.id}/lineage`, { token: reader });
    expect(res.body.parents.map((p: any) => [p.kind, p.blueprint.id])).toEqual([
      ['breed', p1.id],
      ['breed', p2.id],
    ]);
    const down = await server.rest.get(`/api/blueprints/${p1.id}/lineage`, { token: reader });
    expect(down.body.children).toEqual([{ kind: 'breed', blueprint: expect.objectContaining({ id: child.id, name: 'Offspring' }) }]);
  });

  it('answers 404 for the lineage of a foreign private blueprint or an unknown one', async () => {
    for (const token of [reader, stranger.token]) {
      for (const id of [privateBp.id, privateBp.slug, randomUUID()]) {
        const res = await server.rest.get(`/api/blueprints/${id}/lineage`, { token });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
  });
});

describe('GraphQL lineage', () => {
  // root -> a -> b -> c, plus root -> s (a sibling of a), built once.
  let root: any;
  let a: any;
  let b: any;
  let c: any;
  let s: any;

  beforeAll(async () => {
    root = await createBlueprint(server.rest, owner.token, { name: 'Chain Root' });
    a = await fork(server.rest, forker.token, root.id);
    b = await fork(server.rest, forker.token, a.id);
    c = await fork(server.rest, forker.token, b.id);
    s = await fork(server.rest, forker.token, root.id);
  });

  it('answers forkedFrom, parents and children', async () => {
    expect((await server.gql.ok(ForkedFromDocument, { id: b.id }, reader)).blueprint?.forkedFrom).toEqual({ id: a.id, slug: a.slug });
    expect((await server.gql.ok(ForkedFromDocument, { id: root.id }, reader)).blueprint?.forkedFrom).toBeNull();
    const rel = (await server.gql.ok(RelativesDocument, { id: a.id }, reader)).blueprint!;
    expect(rel.parents).toEqual([{ kind: 'FORK', blueprint: { id: root.id, slug: root.slug } }]);
    expect(rel.children).toEqual([{ kind: 'FORK', blueprint: { id: b.id, slug: b.slug } }]);
  });

  it('pages forks as a Relay connection with totalCount, pageInfo and cursors', async () => {
    const first = (await server.gql.ok(ForksDocument, { id: root.id, first: 1 }, reader)).blueprint!.forks;
    expect(first.totalCount).toBe(2);
    expect(first.edges.map((e) => e.node.id)).toEqual([a.id]);
    expect(first.edges[0]!.node.forkedFrom?.id).toBe(root.id);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, endCursor: first.edges[0]!.cursor });
    const second = (await server.gql.ok(ForksDocument, { id: root.id, first: 1, after: first.pageInfo.endCursor }, reader)).blueprint!.forks;
    expect(second.edges.map((e) => e.node.id)).toEqual([s.id]);
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect((await server.gql.ok(ForkCountDocument, { id: root.id }, reader)).blueprint?.forks.totalCount).toBe(2);
  });

  it.each([
    ['first over 100', { first: 101 }],
    ['first of 0', { first: 0 }],
    ['a negative first', { first: -1 }],
    ['a cursor it did not issue', { after: 'bm90LWEtY3Vyc29y' }],
    ['a cursor past the integer range', { after: Buffer.from('pos:99999999999999999999').toString('base64url') }],
  ])('rejects %s with VALIDATION_FAILED', async (_name, args) => {
    const res = await server.gql.request(ForksDocument, { id: root.id, ...args }, reader);
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  const lineageIds = async (id: string, direction: 'UP' | 'DOWN' | 'BOTH', depth: number, token?: string) => {
    const g = (await server.gql.ok(LineageDocument, { id, direction, depth }, token ?? reader)).blueprint!.lineage;
    return {
      nodes: g.nodesWithDepth.map((n) => [n.blueprint.id, n.depth]),
      edges: g.edges.map((e) => [e.parent.id, e.child.id, e.kind]).sort(),
    };
  };

  it('walks up, down or both, as deep as asked, never sideways to cousins', async () => {
    expect((await lineageIds(b.id, 'UP', 1)).nodes).toEqual([
      [b.id, 0],
      [a.id, 1],
    ]);
    const up = await lineageIds(b.id, 'UP', 50);
    expect(up.nodes).toEqual([
      [b.id, 0],
      [a.id, 1],
      [root.id, 2],
    ]);
    expect(up.edges).toEqual(
      [
        [a.id, b.id, 'FORK'],
        [root.id, a.id, 'FORK'],
      ].sort(),
    );
    expect((await lineageIds(b.id, 'DOWN', 10)).nodes).toEqual([
      [b.id, 0],
      [c.id, 1],
    ]);
    const both = await lineageIds(b.id, 'BOTH', 10);
    expect(both.nodes).toEqual([
      [b.id, 0],
      [a.id, 1],
      [c.id, 1],
      [root.id, 2],
    ]);
    expect(both.nodes.map((n) => n[0])).not.toContain(s.id);
    expect((await lineageIds(root.id, 'DOWN', 2)).nodes.map((n) => n[0]).sort()).toEqual([root.id, a.id, b.id, s.id].sort());
  });

  it('never walks through a private blueprint the caller may not see', async () => {
    const top = await createBlueprint(server.rest, owner.token, { name: 'Hidden Middle Top' });
    const middle = await fork(server.rest, stranger.token, top.id);
    const bottom = await fork(server.rest, forker.token, middle.id);
    await sql.query("update blueprint set visibility = 'private' where id = $1", [middle.id]);
    expect((await lineageIds(top.id, 'DOWN', 10)).nodes).toEqual([[top.id, 0]]);
    expect((await lineageIds(bottom.id, 'UP', 10)).nodes).toEqual([[bottom.id, 0]]);
    expect((await lineageIds(top.id, 'DOWN', 10, stranger.token)).nodes).toEqual([
      [top.id, 0],
      [middle.id, 1],
      [bottom.id, 2],
    ]);
  });

  it.each([[51], [0], [-3]])('rejects lineage depth %d with VALIDATION_FAILED', async (depth) => {
    const res = await server.gql.request(LineageDocument, { id: root.id, direction: 'BOTH', depth }, reader);
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(res.errors?.[0]?.extensions?.details?.issues?.[0]?.path).toBe('depth');
  });

  it('answers null for the lineage of a foreign private blueprint', async () => {
    const res = await server.gql.request(LineageDocument, { id: privateBp.id, direction: 'BOTH', depth: 5 }, stranger.token);
    expect(res.errors).toBeUndefined();
    expect(res.data?.blueprint).toBeNull();
  });
});
