import { AddTeamMemberDocument, CreateTeamDocument, RemoveTeamMemberDocument, TeamByIdDocument, UpdateTeamMemberDocument } from '../generated/graphql';
import { createTeam, principalIdOf, sql } from '../fixtures/architectures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
const people = ['owner', 'admin', 'member', 'viewer', 'stranger', 'newcomer'] as const;

beforeAll(async () => {
  server = await startTestServer();
  for (const p of people) {
    tokens[p] = await server.rest.agentToken(p);
    ids[p] = await principalIdOf(server.gql, tokens[p]!);
  }
});
afterAll(() => server.close());

/** A team with one principal in each role. */
async function fullTeam(): Promise<string> {
  const team = await createTeam(server.rest, tokens.owner!, [
    [ids.admin!, 'admin'],
    [ids.member!, 'member'],
    [ids.viewer!, 'viewer'],
  ]);
  return team.id;
}

const membersOf = async (teamId: string) =>
  sql<{ principal_id: string; role: string }>(server.databaseUrl, 'select principal_id, role from team_member where team_id = $1 order by principal_id', [
    teamId,
  ]);

describe('POST /api/teams', () => {
  it('creates a team whose owner is the caller', async () => {
    const res = await server.rest.post('/api/teams', { token: tokens.owner, body: { name: '  Platform  ' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Platform', conventions: '', viewer_role: 'owner' });
    expect(res.body.members).toEqual([expect.objectContaining({ principal_id: ids.owner, role: 'owner', kind: 'agent', name: 'owner' })]);
  });

  it.each([
    ['no name', {}],
    ['a blank name', { name: '   ' }],
    ['a name that is not a string', { name: 42 }],
    ['an unknown property', { name: 'x', color: 'red' }],
  ])('rejects %s with 400 and creates nothing', async (_what, body) => {
    const before = await sql(server.databaseUrl, 'select count(*)::int as n from team');
    const res = await server.rest.post('/api/teams', { token: tokens.owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toMatch(/^body/);
    expect(await sql(server.databaseUrl, 'select count(*)::int as n from team')).toEqual(before);
  });

  it('requires authentication', async () => {
    const res = await server.rest.post('/api/teams', { body: { name: 'x' } });
    expect(res.status).toBe(401);
  });
});

describe('GET /api/teams/:id', () => {
  it('shows the team and its members, owner first, to every member whatever the role', async () => {
    const teamId = await fullTeam();
    for (const who of ['owner', 'admin', 'member', 'viewer'] as const) {
      const res = await server.rest.get(`/api/teams/${teamId}`, { token: tokens[who] });
      expect(res.status).toBe(200);
      expect(res.body.viewer_role).toBe(who);
      expect(res.body.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'admin', 'member', 'viewer']);
    }
  });

  it('is 404 to non-members, for unknown ids and for ids that are not UUIDs; 401 anonymous', async () => {
    const teamId = await fullTeam();
    expect((await server.rest.get(`/api/teams/${teamId}`, { token: tokens.stranger })).status).toBe(404);
    expect((await server.rest.get('/api/teams/00000000-0000-4000-8000-000000000000', { token: tokens.owner })).status).toBe(404);
    expect((await server.rest.get('/api/teams/not-a-uuid', { token: tokens.owner })).status).toBe(404);
    expect((await server.rest.get(`/api/teams/${teamId}`)).status).toBe(401);
  });
});

describe('POST /api/teams/:id/members', () => {
  it('lets the owner and admins add members with any role but owner', async () => {
    const teamId = await fullTeam();
    const res = await server.rest.post(`/api/teams/${teamId}/members`, { token: tokens.admin, body: { principal_id: ids.newcomer, role: 'admin' } });
    expect(res.status).toBe(201);
    expect(res.body.members).toContainEqual(expect.objectContaining({ principal_id: ids.newcomer, role: 'admin' }));
  });

  it.each([
    ['a member', 'member', 403],
    ['a viewer', 'viewer', 403],
    ['a stranger', 'stranger', 404],
  ] as const)('refuses %s and adds nobody', async (_who, who, status) => {
    const teamId = await fullTeam();
    const before = await membersOf(teamId);
    const res = await server.rest.post(`/api/teams/${teamId}/members`, { token: tokens[who], body: { principal_id: ids.newcomer, role: 'viewer' } });
    expect(res.status).toBe(status);
    expect(await membersOf(teamId)).toEqual(before);
  });

  it.each([
    ['role owner (one owner per team)', () => ({ principal_id: ids.newcomer, role: 'owner' }), 400, 'VALIDATION_FAILED'],
    ['an unknown role', () => ({ principal_id: ids.newcomer, role: 'boss' }), 400, 'VALIDATION_FAILED'],
    ['a principal id that is not a UUID', () => ({ principal_id: 'bob', role: 'member' }), 400, 'VALIDATION_FAILED'],
    ['no role', () => ({ principal_id: ids.newcomer }), 400, 'VALIDATION_FAILED'],
    ['an unknown principal', () => ({ principal_id: '00000000-0000-4000-8000-000000000000', role: 'member' }), 404, 'NOT_FOUND'],
    ['someone already in the team', () => ({ principal_id: ids.member, role: 'viewer' }), 409, 'CONFLICT'],
  ] as const)('rejects %s and changes nothing', async (_what, body, status, code) => {
    const teamId = await fullTeam();
    const before = await membersOf(teamId);
    const res = await server.rest.post(`/api/teams/${teamId}/members`, { token: tokens.owner, body: body() });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(await membersOf(teamId)).toEqual(before);
  });

  it('is 401 anonymous and 404 for an unknown team', async () => {
    const teamId = await fullTeam();
    expect((await server.rest.post(`/api/teams/${teamId}/members`, { body: { principal_id: ids.newcomer, role: 'viewer' } })).status).toBe(401);
    expect(
      (
        await server.rest.post('/api/teams/00000000-0000-4000-8000-000000000000/members', {
          token: tokens.owner,
          body: { principal_id: ids.newcomer, role: 'viewer' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('PATCH /api/teams/:id/members/:principalId', () => {
  it('lets an admin change another member’s role', async () => {
    const teamId = await fullTeam();
    const res = await server.rest.patch(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.admin, body: { role: 'viewer' } });
    expect(res.status).toBe(200);
    expect(res.body.members).toContainEqual(expect.objectContaining({ principal_id: ids.member, role: 'viewer' }));
  });

  it('hands ownership over when the owner gives the owner role: the old owner becomes an admin', async () => {
    const teamId = await fullTeam();
    const res = await server.rest.patch(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.owner, body: { role: 'owner' } });
    expect(res.status).toBe(200);
    const roles = Object.fromEntries((await membersOf(teamId)).map((m) => [m.principal_id, m.role]));
    expect(roles[ids.member!]).toBe('owner');
    expect(roles[ids.owner!]).toBe('admin');
    expect(Object.values(roles).filter((r) => r === 'owner')).toHaveLength(1);
  });

  it.each([
    ['an admin handing ownership over', 'admin', () => ids.member, { role: 'owner' }, 403],
    ['an admin changing the owner’s role', 'admin', () => ids.owner, { role: 'viewer' }, 403],
    ['the owner demoting themselves', 'owner', () => ids.owner, { role: 'admin' }, 403],
    ['a member changing a role', 'member', () => ids.viewer, { role: 'member' }, 403],
    ['a viewer changing a role', 'viewer', () => ids.viewer, { role: 'admin' }, 403],
    ['a stranger', 'stranger', () => ids.viewer, { role: 'admin' }, 404],
    ['an unknown member', 'owner', () => ids.newcomer, { role: 'admin' }, 404],
    ['an unknown role', 'owner', () => ids.member, { role: 'god' }, 400],
  ] as const)('refuses %s and changes nothing', async (_what, who, target, body, status) => {
    const teamId = await fullTeam();
    const before = await membersOf(teamId);
    const res = await server.rest.patch(`/api/teams/${teamId}/members/${target()}`, { token: tokens[who], body });
    expect(res.status).toBe(status);
    expect(await membersOf(teamId)).toEqual(before);
  });
});

describe('DELETE /api/teams/:id/members/:principalId', () => {
  it('lets an admin remove a member and a viewer leave on their own', async () => {
    const teamId = await fullTeam();
    expect((await server.rest.delete(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.admin })).status).toBe(204);
    expect((await server.rest.delete(`/api/teams/${teamId}/members/${ids.viewer}`, { token: tokens.viewer })).status).toBe(204);
    expect((await membersOf(teamId)).map((m) => m.principal_id).sort()).toEqual([ids.owner, ids.admin].sort());
    expect((await server.rest.get(`/api/teams/${teamId}`, { token: tokens.viewer })).status).toBe(404);
  });

  it.each([
    ['the owner removed by an admin', 'admin', () => ids.owner, 403],
    ['the owner leaving', 'owner', () => ids.owner, 403],
    ['a member removing someone else', 'member', () => ids.viewer, 403],
    ['a viewer removing someone else', 'viewer', () => ids.member, 403],
    ['a stranger', 'stranger', () => ids.member, 404],
    ['someone not in the team', 'owner', () => ids.newcomer, 404],
  ] as const)('refuses %s and removes nobody', async (_what, who, target, status) => {
    const teamId = await fullTeam();
    const before = await membersOf(teamId);
    const res = await server.rest.delete(`/api/teams/${teamId}/members/${target()}`, { token: tokens[who] });
    expect(res.status).toBe(status);
    expect(await membersOf(teamId)).toEqual(before);
  });
});

describe('teams over GraphQL', () => {
  it('creates a team, adds, updates and removes members, with the same rules', async () => {
    const { gql } = server;
    const created = (await gql.ok(CreateTeamDocument, { name: 'GraphQL team' }, tokens.owner)).createTeam;
    expect(created.viewerRole).toBe('OWNER');
    expect(created.members.map((m) => [m.principal.id, m.role])).toEqual([[ids.owner, 'OWNER']]);

    const added = (await gql.ok(AddTeamMemberDocument, { teamId: created.id, principalId: ids.member!, role: 'MEMBER' }, tokens.owner)).addTeamMember;
    expect(added.members.map((m) => m.role)).toEqual(['OWNER', 'MEMBER']);

    const refused = await gql.request(AddTeamMemberDocument, { teamId: created.id, principalId: ids.viewer!, role: 'VIEWER' }, tokens.member);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const updated = (await gql.ok(UpdateTeamMemberDocument, { teamId: created.id, principalId: ids.member!, role: 'ADMIN' }, tokens.owner)).updateTeamMember;
    expect(updated.members.map((m) => m.role)).toEqual(['OWNER', 'ADMIN']);

    expect((await gql.ok(TeamByIdDocument, { id: created.id }, tokens.member)).team?.viewerRole).toBe('ADMIN');
    expect((await gql.ok(TeamByIdDocument, { id: created.id }, tokens.stranger)).team).toBeNull();

    const left = await gql.ok(RemoveTeamMemberDocument, { teamId: created.id, principalId: ids.member! }, tokens.member);
    expect(left.removeTeamMember).toBeNull();
    const ownerLeaving = await gql.request(RemoveTeamMemberDocument, { teamId: created.id, principalId: ids.owner! }, tokens.owner);
    expect(ownerLeaving.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
