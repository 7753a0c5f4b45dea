import {
  ArchitectureChangedDocument,
  BlueprintActivityDocument,
  DeleteArchitectureDocument,
  DeleteBlueprintDocument,
  UpdateArchitectureDocument,
  UpdateBlueprintDocument,
} from '../generated/graphql';
import { addEdge, addNode, createArchitecture, createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';
import { connectWs, type WsClient } from '../helpers/ws';
import { liveMark } from '../helpers/live';

let server: TestServer;
let sql: SqlClient;
let owner: { token: string; id: string };
let stranger: string;
const sockets: WsClient[] = [];
const ws = (token?: string) => {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client;
};

beforeAll(async () => {
  server = await startTestServer();
  sql = await SqlClient.connect(server.databaseUrl);
  owner = await server.rest.agentSession('owner');
  stranger = await server.rest.agentToken('stranger');
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await sql.close();
  await server.close();
});

describe('PATCH /api/blueprints/:id', () => {
  it('changes name, description and tags for the owner; the slug never changes', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Before rename', tags: ['old'] });
    const res = await server.rest.patch(`/api/blueprints/${bp.id}`, {
      token: owner.token,
      body: { name: 'After rename', description: 'new words', tags: ['new', 'api'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bp.id, slug: bp.slug, name: 'After rename', description: 'new words', tags: ['new', 'api'] });
    expect((await server.rest.get(`/api/blueprints/${bp.slug}`, { token: stranger })).body.name).toBe('After rename');
    expect((await server.rest.get('/api/registry?tags=api', { token: stranger })).body.items.map((c: any) => c.id)).toContain(bp.id);
  });

  it('lets a team editor patch but not a viewer (403), hides private ones from strangers (404), and checks the body (400)', async () => {
    const editor = await server.rest.agentSession('editor');
    const viewer = await server.rest.agentSession('viewer');
    const team = await createTeam(server.rest, owner.token, [
      [editor.id, 'member'],
      [viewer.id, 'viewer'],
    ]);
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Team plan', visibility: 'private' });
    await sql.query('update blueprint set team_id = $1 where id = $2', [team.id, bp.id]);
    expect((await server.rest.patch(`/api/blueprints/${bp.id}`, { token: editor.token, body: { description: 'by the editor' } })).status).toBe(200);
    expect((await server.rest.patch(`/api/blueprints/${bp.id}`, { token: viewer.token, body: { description: 'by the viewer' } })).status).toBe(403);
    expect((await server.rest.patch(`/api/blueprints/${bp.id}`, { token: stranger, body: { description: 'x' } })).status).toBe(404);
    const pub = await createBlueprint(server.rest, owner.token, { name: 'Public untouchable' });
    expect((await server.rest.patch(`/api/blueprints/${pub.id}`, { token: stranger, body: { name: 'mine now' } })).status).toBe(403);
    for (const body of [{}, { slug: 'new-slug' }, { visibility: 'secret' }, { name: '' }, { tags: ['Not Valid!'] }, { name: 5 }])
      expect((await server.rest.patch(`/api/blueprints/${pub.id}`, { token: owner.token, body })).status).toBe(400);
    expect((await server.rest.get(`/api/blueprints/${pub.id}`, { token: owner.token })).body.name).toBe('Public untouchable');
  });

  it('applies a visibility change everywhere at once: registry, lineage, forks, architectures and live subscribers', async () => {
    const parent = await createBlueprint(server.rest, owner.token, { name: 'Going private parent', tags: ['going-private'] });
    const child = await fork(server.rest, owner.token, parent.id);
    const arch = await createArchitecture(server.rest, stranger, { name: 'Stranger map' });
    await addNode(server.rest, stranger, arch.slug, { blueprint_id: child.id });
    const mark = liveMark(server);
    const watcher = ws(stranger).subscribe(BlueprintActivityDocument, { id: child.id });
    const archWatch = ws(stranger).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await mark.streaming(2);

    const res = await server.rest.patch(`/api/blueprints/${child.id}`, { token: owner.token, body: { visibility: 'private' } });
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('private');

    expect((await server.rest.get(`/api/blueprints/${child.id}`, { token: stranger })).status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${parent.id}/forks`, { token: stranger })).body.items).toEqual([]);
    expect((await server.rest.get(`/api/blueprints/${parent.id}/lineage`, { token: stranger })).body.children).toEqual([]);
    expect((await server.rest.get(`/api/blueprints/${parent.id}/lineage`, { token: owner.token })).body.children).toHaveLength(1);
    const view = await server.rest.get(`/api/architectures/${arch.slug}`, { token: stranger });
    expect(view.body.nodes[0].blueprint).toBeNull();
    const ended = await watcher.next();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const changed = await archWatch.next();
    expect(changed.data?.architectureChanged).toMatchObject({ kind: 'NODE_UPDATED' });
  });
});

describe('DELETE /api/blueprints/:id', () => {
  it('deletes a blueprint with everything that was its own; forks survive without a parent; broadcasts stay delivered', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Doomed' });
    const other = await createBlueprint(server.rest, owner.token, { name: 'Neighbour' });
    const forker = await server.rest.agentSession('forker');
    const child = await fork(server.rest, forker.token, bp.id);
    const fan = await server.rest.agentToken('fan');
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200);
    expect((await server.rest.post(`/api/blueprints/${bp.id}/reviews`, { token: fan, body: { rating: 4, body: 'ok' } })).status).toBe(201);
    expect((await server.rest.post(`/api/blueprints/${bp.id}/changelog`, { token: owner.token, body: { title: 'v1', body: '' } })).status).toBe(201);
    expect(
      (await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner.token, body: { message: 'heads up', type: 'notice', severity: 'info' } }))
        .status,
    ).toBe(201);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/start`, { token: fan })).status).toBe(200);
    const arch = await createArchitecture(server.rest, owner.token, { name: 'Doomed map' });
    const node = await addNode(server.rest, owner.token, arch.slug, { blueprint_id: bp.id });
    const neighbour = await addNode(server.rest, owner.token, arch.slug, { blueprint_id: other.id });
    await addEdge(server.rest, owner.token, arch.slug, { source_node_id: node.id, target_node_id: neighbour.id, edge_type: 'api_call' });
    const mark = liveMark(server);
    const live = ws(owner.token).subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await mark.streaming(1);

    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: forker.token })).status).toBe(403);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: owner.token })).status).toBe(204);

    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner.token })).status).toBe(404);
    const survivor = await server.rest.get(`/api/blueprints/${child.id}`, { token: forker.token });
    expect(survivor.status).toBe(200);
    expect(survivor.body.forked_from).toBeNull();
    expect((await server.rest.get(`/api/blueprints/${child.id}/lineage`, { token: forker.token })).body.parents).toEqual([]);
    for (const table of [
      'star',
      'review',
      'blueprint_version',
      'changelog_entry',
      'execution_run',
      'lineage_link',
      'architecture_node',
      'blueprint_subscription',
    ])
      expect(await sql.count(table, table === 'lineage_link' ? 'parent_id = $1 or child_id = $1' : 'blueprint_id = $1', [bp.id])).toBe(0);
    expect(await sql.count('architecture_edge', 'source_node_id = $1 or target_node_id = $1', [node.id])).toBe(0);
    const inbox = await server.rest.get('/api/inbox', { token: forker.token });
    expect(inbox.body.items).toHaveLength(1);
    expect(inbox.body.items[0].broadcast).toMatchObject({ message: 'heads up', source_blueprint_id: null });

    const event = await live.next();
    expect(event.data?.architectureChanged).toMatchObject({ kind: 'NODE_REMOVED', subjectId: node.id });
    expect(event.data?.architectureChanged.architecture.nodes.map((n) => n.id)).toEqual([neighbour.id]);
    expect(event.data?.architectureChanged.architecture.edges).toEqual([]);
  });

  it('lets a team owner or admin delete a team blueprint, not a member; strangers get 404 for private ones', async () => {
    const admin = await server.rest.agentSession('admin');
    const member = await server.rest.agentSession('member');
    const team = await createTeam(server.rest, owner.token, [
      [admin.id, 'admin'],
      [member.id, 'member'],
    ]);
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Team doomed', visibility: 'private' });
    await sql.query('update blueprint set team_id = $1 where id = $2', [team.id, bp.id]);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: stranger })).status).toBe(404);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: member.token })).status).toBe(403);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: admin.token })).status).toBe(204);
  });

  it('patches and deletes over GraphQL', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'GraphQL lifecycle' });
    const updated = await server.gql.ok(
      UpdateBlueprintDocument,
      { id: bp.id, input: { name: 'Renamed by GraphQL', visibility: 'PRIVATE' as never } },
      owner.token,
    );
    expect(updated.updateBlueprint).toMatchObject({ slug: bp.slug, name: 'Renamed by GraphQL', visibility: 'PRIVATE' });
    expect((await server.gql.request(DeleteBlueprintDocument, { id: bp.id }, stranger)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await server.gql.ok(DeleteBlueprintDocument, { id: bp.id }, owner.token)).deleteBlueprint).toBe(true);
    expect(await sql.count('blueprint', 'id = $1', [bp.id])).toBe(0);
  });
});

describe('PATCH and DELETE /api/architectures/:slug', () => {
  it('renames and hides an architecture (slug kept), then deletes it with its nodes and edges; blueprints stay', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Stays after map deletion' });
    const arch = await createArchitecture(server.rest, owner.token, { name: 'Old map name' });
    await addNode(server.rest, owner.token, arch.slug, { blueprint_id: bp.id });
    const mark = liveMark(server);
    const watch = ws().subscribe(ArchitectureChangedDocument, { slug: arch.slug });
    await mark.streaming(1);
    expect((await server.rest.patch(`/api/architectures/${arch.slug}`, { token: stranger, body: { name: 'x' } })).status).toBe(403);
    expect((await server.rest.patch(`/api/architectures/${arch.slug}`, { token: owner.token, body: { slug: 'x' } })).status).toBe(400);
    const renamed = await server.rest.patch(`/api/architectures/${arch.slug}`, { token: owner.token, body: { name: 'New map name' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ slug: arch.slug, name: 'New map name' });
    expect((await watch.next()).data?.architectureChanged).toMatchObject({ kind: 'UPDATED' });
    expect((await server.rest.patch(`/api/architectures/${arch.slug}`, { token: owner.token, body: { visibility: 'private' } })).status).toBe(200);
    expect((await server.rest.get(`/api/architectures/${arch.slug}`)).status).toBe(404);
    expect((await server.rest.get('/api/architectures')).body.items.map((a: any) => a.slug)).not.toContain(arch.slug);
    // The anonymous watcher may no longer see it: its stream ends with NOT_FOUND, without the change.
    const ended = await watch.next();
    expect(ended.data?.architectureChanged ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    expect((await server.rest.delete(`/api/architectures/${arch.slug}`, { token: stranger })).status).toBe(404);
    expect((await server.rest.delete(`/api/architectures/${arch.slug}`, { token: owner.token })).status).toBe(204);
    expect((await server.rest.get(`/api/architectures/${arch.slug}`, { token: owner.token })).status).toBe(404);
    expect(await sql.count('architecture_node', 'blueprint_id = $1', [bp.id])).toBe(0);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner.token })).status).toBe(200);
  });

  it('does the same over GraphQL', async () => {
    const arch = await createArchitecture(server.rest, owner.token, { name: 'GraphQL map' });
    const updated = await server.gql.ok(UpdateArchitectureDocument, { slug: arch.slug, name: 'GraphQL map renamed' }, owner.token);
    expect(updated.updateArchitecture).toMatchObject({ slug: arch.slug, name: 'GraphQL map renamed' });
    expect((await server.gql.ok(DeleteArchitectureDocument, { slug: arch.slug }, owner.token)).deleteArchitecture).toBe(true);
    expect(await sql.count('architecture', 'slug = $1', [arch.slug])).toBe(0);
  });
});
