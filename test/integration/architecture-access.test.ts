import { ArchitectureEcosystemDocument, ArchitectureModuleDetailDocument, ArchitectureNodeModulesDocument } from '../generated/graphql';
import { addEdge, addNode, architectureState, createArchitecture, createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const roles = ['archOwner', 'teamOwner', 'admin', 'member', 'viewer', 'stranger'] as const;
type Who = (typeof roles)[number] | 'anonymous';
const tokens: Partial<Record<Who, string>> = {};
const ids: Partial<Record<Who, string>> = {};
let teamId: string;
let otherTeamId: string; // archOwner is only a member there
let publicBlueprints: any[];

beforeAll(async () => {
  server = await startTestServer();
  for (const r of roles) {
    tokens[r] = await server.rest.agentToken(r);
    ids[r] = await principalIdOf(server.gql, tokens[r]!);
  }
  // The architecture's owner is an admin of the team, so they may transfer into it (any editor role may).
  const team = await createTeam(server.rest, tokens.teamOwner!, [
    [ids.archOwner!, 'admin'],
    [ids.admin!, 'admin'],
    [ids.member!, 'member'],
    [ids.viewer!, 'viewer'],
  ]);
  teamId = team.id;
  otherTeamId = (await createTeam(server.rest, tokens.teamOwner!, [[ids.archOwner!, 'member']], 'Other team')).id;
  const root = await createBlueprint(server.rest, tokens.archOwner!, { name: 'Shared root' });
  publicBlueprints = [root];
  for (let i = 0; i < 12; i++) publicBlueprints.push(await fork(server.rest, tokens.stranger!, root.id));
});
afterAll(() => server.close());

let nextBlueprint = 2; // 0 and 1 are on every team architecture
const freshBlueprint = () => publicBlueprints[nextBlueprint++]!;

/** A private architecture owned by archOwner, transferred to the team, with two nodes and an edge. */
async function teamArchitecture(name: string) {
  const arch = await createArchitecture(server.rest, tokens.archOwner!, { name, visibility: 'private' });
  const transfer = await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.archOwner, body: { team_id: teamId } });
  expect(transfer.status).toBe(200);
  const a = await addNode(server.rest, tokens.archOwner!, arch.slug, { blueprint_id: publicBlueprints[0].id });
  const b = await addNode(server.rest, tokens.archOwner!, arch.slug, { blueprint_id: publicBlueprints[1].id });
  const edge = await addEdge(server.rest, tokens.archOwner!, arch.slug, { source_node_id: a.id, target_node_id: b.id, edge_type: 'api_call' });
  return { slug: arch.slug as string, a, b, edge };
}

describe('reading a private team architecture', () => {
  it.each(['archOwner', 'teamOwner', 'admin', 'member', 'viewer'] as const)('is allowed to the %s (REST, export, GraphQL)', async (who) => {
    const { slug } = await teamArchitecture(`Read ${who}`);
    const res = await server.rest.get(`/api/architectures/${slug}`, { token: tokens[who] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ team_id: teamId, visibility: 'private' });
    expect(res.body.nodes).toHaveLength(2);
    expect((await server.rest.get(`/api/architectures/${slug}/export?format=mermaid`, { token: tokens[who] })).status).toBe(200);
    const data = await server.gql.ok(ArchitectureEcosystemDocument, { slug }, tokens[who]);
    expect(data.architecture?.team?.id).toBe(teamId);
    expect(data.architecture?.viewerCanEdit).toBe(who !== 'viewer');
  });

  it.each(['stranger', 'anonymous'] as const)('is 404 (null in GraphQL) to the %s caller', async (who) => {
    const { slug } = await teamArchitecture(`Read ${who}`);
    expect((await server.rest.get(`/api/architectures/${slug}`, { token: tokens[who] })).status).toBe(404);
    expect((await server.rest.get(`/api/architectures/${slug}/export?format=dot`, { token: tokens[who] })).status).toBe(404);
    expect((await server.gql.ok(ArchitectureEcosystemDocument, { slug }, tokens[who])).architecture).toBeNull();
  });
});

describe('editing a team architecture', () => {
  it.each(['archOwner', 'teamOwner', 'admin', 'member'] as const)('is allowed to the %s: add node, add edge, move, remove edge, remove node', async (who) => {
    const { slug, a } = await teamArchitecture(`Edit ${who}`);
    const token = tokens[who];
    const node = await server.rest.post(`/api/architectures/${slug}/nodes`, { token, body: { blueprint_id: freshBlueprint().id } });
    expect(node.status).toBe(201);
    const edge = await server.rest.post(`/api/architectures/${slug}/edges`, {
      token,
      body: { source_node_id: node.body.id, target_node_id: a.id, edge_type: 'auth' },
    });
    expect(edge.status).toBe(201);
    expect((await server.rest.put(`/api/architectures/${slug}/layout`, { token, body: [{ nodeId: node.body.id, position: { x: 7, y: 7 } }] })).status).toBe(
      200,
    );
    expect((await server.rest.delete(`/api/architectures/${slug}/edges/${edge.body.id}`, { token })).status).toBe(204);
    expect((await server.rest.delete(`/api/architectures/${slug}/nodes/${node.body.id}`, { token })).status).toBe(204);
  });

  it.each([
    ['viewer', 403, 'FORBIDDEN'],
    ['stranger', 404, 'NOT_FOUND'],
    ['anonymous', 401, 'UNAUTHENTICATED'],
  ] as const)('refuses every edit by the %s caller with %i and writes nothing', async (who, status, code) => {
    const { slug, a, b, edge } = await teamArchitecture(`Refuse ${who}`);
    const token = tokens[who];
    const before = await architectureState(server.databaseUrl, slug);
    const attempts = [
      server.rest.post(`/api/architectures/${slug}/nodes`, { token, body: { blueprint_id: freshBlueprint().id } }),
      server.rest.post(`/api/architectures/${slug}/edges`, { token, body: { source_node_id: b.id, target_node_id: a.id, edge_type: 'event' } }),
      server.rest.post(`/api/architectures/${slug}/edges`, { token, body: { source_node_id: b.id, target_node_id: a.id, edge_type: 'lineage_fork' } }),
      server.rest.put(`/api/architectures/${slug}/layout`, { token, body: [{ nodeId: a.id, position: { x: 1, y: 1 } }] }),
      server.rest.delete(`/api/architectures/${slug}/edges/${edge.id}`, { token }),
      server.rest.delete(`/api/architectures/${slug}/nodes/${a.id}`, { token }),
      server.rest.post(`/api/architectures/${slug}/transfer`, { token, body: { team_id: otherTeamId } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    expect(await architectureState(server.databaseUrl, slug)).toEqual(before);
  });

  it('lets anyone read a public architecture but only its owner edit it (403 to others, 401 anonymous)', async () => {
    const arch = await createArchitecture(server.rest, tokens.archOwner!, { name: 'Public edit' });
    const before = await architectureState(server.databaseUrl, arch.slug);
    for (const who of ['stranger', 'anonymous', 'member'] as const) {
      expect((await server.rest.get(`/api/architectures/${arch.slug}`, { token: tokens[who] })).status).toBe(200);
      const res = await server.rest.post(`/api/architectures/${arch.slug}/nodes`, { token: tokens[who], body: { blueprint_id: publicBlueprints[0].id } });
      expect(res.status).toBe(who === 'anonymous' ? 401 : 403);
    }
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });
});

describe('POST /api/architectures/:slug/transfer', () => {
  it('moves the architecture to a team where its owner is owner, admin or member; the team can then read it', async () => {
    const arch = await createArchitecture(server.rest, tokens.archOwner!, { name: 'Transfer me', visibility: 'private' });
    expect((await server.rest.get(`/api/architectures/${arch.slug}`, { token: tokens.viewer })).status).toBe(404);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.archOwner, body: { team_id: teamId } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ slug: arch.slug, team_id: teamId, owner_id: ids.archOwner });
    expect((await server.rest.get(`/api/architectures/${arch.slug}`, { token: tokens.viewer })).status).toBe(200);
    // Again to the same team: nothing to do.
    const before = await architectureState(server.databaseUrl, arch.slug);
    expect((await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.archOwner, body: { team_id: teamId } })).status).toBe(200);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });

  it('lets the owner of the current team transfer it out to another of their teams', async () => {
    const { slug } = await teamArchitecture('Transfer out');
    const res = await server.rest.post(`/api/architectures/${slug}/transfer`, { token: tokens.teamOwner, body: { team_id: otherTeamId } });
    expect(res.status).toBe(200);
    expect(res.body.team_id).toBe(otherTeamId);
  });

  it.each([
    ['its owner (an admin of its team) moving it to another team: only the team owner takes it out', 'archOwner', () => ({ team_id: otherTeamId }), 403],
    ['its owner (an admin of its team) moving it out of teams', 'archOwner', () => ({ team_id: null }), 403],
    ['an admin of the current team who does not own the architecture', 'admin', () => ({ team_id: teamId }), 403],
    ['a member of the current team', 'member', () => ({ team_id: teamId }), 403],
    ['a team id that is not a UUID', 'archOwner', () => ({ team_id: 'stranger-team' }), 400],
    ['the owner without a team id', 'archOwner', () => ({}), 400],
    ['the owner with an unknown property', 'archOwner', () => ({ team_id: teamId, force: true }), 400],
  ] as const)('refuses %s and changes nothing', async (_what, who, body, status) => {
    const { slug } = await teamArchitecture(`Transfer refused ${who}`);
    const before = await architectureState(server.databaseUrl, slug);
    const res = await server.rest.post(`/api/architectures/${slug}/transfer`, { token: tokens[who], body: body() });
    expect(res.status).toBe(status);
    expect(await architectureState(server.databaseUrl, slug)).toEqual(before);
  });

  it('is 404 for a team the caller is not in, even when it exists, and for an unknown team', async () => {
    const foreignTeam = (await createTeam(server.rest, tokens.stranger!, [], 'Foreign')).id;
    const arch = await createArchitecture(server.rest, tokens.archOwner!, { name: 'Transfer foreign' });
    const before = await architectureState(server.databaseUrl, arch.slug);
    const res = await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.archOwner, body: { team_id: foreignTeam } });
    expect(res.status).toBe(404);
    const unknown = await server.rest.post(`/api/architectures/${arch.slug}/transfer`, {
      token: tokens.archOwner,
      body: { team_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(404);
    expect(await architectureState(server.databaseUrl, arch.slug)).toEqual(before);
  });
});

describe('redaction of blueprints the viewer may not read', () => {
  it('shows them in a public architecture as redacted nodes: no blueprint, no id, no content, no lineage', async () => {
    const owner = tokens.archOwner!;
    const secret = await createBlueprint(server.rest, owner, { name: 'Top secret', visibility: 'private' });
    const secretFork = await fork(server.rest, owner, secret.id);
    const open = publicBlueprints[0];
    const arch = await createArchitecture(server.rest, owner, { name: 'Half secret' });
    const nOpen = await addNode(server.rest, owner, arch.slug, { blueprint_id: open.id });
    const nSecret = await addNode(server.rest, owner, arch.slug, { blueprint_id: secret.id });
    const nFork = await addNode(server.rest, owner, arch.slug, { blueprint_id: secretFork.id });
    const manual = await addEdge(server.rest, owner, arch.slug, { source_node_id: nOpen.id, target_node_id: nSecret.id, edge_type: 'custom', label: 'feeds' });

    const mine = (await server.rest.get(`/api/architectures/${arch.slug}`, { token: owner })).body;
    expect(mine.nodes.map((n: any) => n.redacted)).toEqual([false, false, false]);
    expect(mine.edges.map((e: any) => e.id)).toEqual([manual.id, `lineage:${nSecret.id}:${nFork.id}`]);

    for (const who of ['stranger', 'anonymous'] as const) {
      const seen = (await server.rest.get(`/api/architectures/${arch.slug}`, { token: tokens[who] })).body;
      expect(seen.nodes[0]).toMatchObject({ id: nOpen.id, blueprint_id: open.id, redacted: false, blueprint: expect.objectContaining({ name: open.name }) });
      for (const [i, node] of [nSecret, nFork].entries())
        expect(seen.nodes[i + 1]).toEqual({
          id: node.id,
          blueprint_id: null,
          position_x: node.position_x,
          position_y: node.position_y,
          blueprint: null,
          redacted: true,
        });
      expect(seen.edges.map((e: any) => e.id)).toEqual([manual.id]);
      expect(JSON.stringify(seen)).not.toContain('Top secret');
      expect(JSON.stringify(seen)).not.toContain(secret.id);
      for (const format of ['mermaid', 'dot', 'json']) {
        const text = (await server.rest.get(`/api/architectures/${arch.slug}/export?format=${format}`, { token: tokens[who] })).body;
        const printed = typeof text === 'string' ? text : JSON.stringify(text);
        expect(printed).not.toContain('Top secret');
        expect(printed).not.toContain(secret.id);
      }
      const gql = await server.gql.ok(ArchitectureEcosystemDocument, { slug: arch.slug }, tokens[who]);
      expect(gql.architecture!.nodes[1]).toEqual({
        id: nSecret.id,
        blueprintId: null,
        redacted: true,
        position: { x: nSecret.position_x, y: nSecret.position_y },
        composition: [],
        card: null,
        blueprint: null,
      });
      const modules = await server.gql.ok(ArchitectureNodeModulesDocument, { slug: arch.slug, nodeId: nSecret.id }, tokens[who]);
      expect(modules.architecture!.node).toEqual({ id: nSecret.id, redacted: true, modules: [], dependencies: [] });
      const detail = await server.gql.ok(ArchitectureModuleDetailDocument, { slug: arch.slug, nodeId: nSecret.id, key: 'api' }, tokens[who]);
      expect(detail.architecture!.node!.module).toBeNull();
    }
  });
  it("shows a team's private blueprint to the team's members and redacts it for everyone else", async () => {
    const secret = await createBlueprint(server.rest, tokens.teamOwner!, { name: 'Team secret', visibility: 'private' });
    expect((await server.rest.post(`/api/blueprints/${secret.id}/transfer`, { token: tokens.teamOwner, body: { team_id: teamId } })).status).toBe(200);
    const arch = await createArchitecture(server.rest, tokens.archOwner!, { name: 'Team node' });
    const node = await addNode(server.rest, tokens.archOwner!, arch.slug, { blueprint_id: secret.id });
    for (const who of ['teamOwner', 'admin', 'member', 'viewer', 'stranger', 'anonymous'] as const) {
      const data = await server.gql.ok(ArchitectureEcosystemDocument, { slug: arch.slug }, tokens[who]);
      const seen = data.architecture!.nodes.find((n) => n.id === node.id)!;
      const member = who !== 'stranger' && who !== 'anonymous';
      expect({ who, redacted: seen.redacted, card: seen.card?.name ?? null }).toEqual({ who, redacted: !member, card: member ? 'Team secret' : null });
    }
  });
});
