import {
  BlueprintActivityDocument,
  BlueprintTeamDocument,
  DeleteTeamDocument,
  TeamAuditLogDocument,
  TeamContentsDocument,
  TransferBlueprintDocument,
  UpdateTeamDocument,
  ViewerTeamsDocument,
} from '../generated/graphql';
import { createArchitecture, createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, createSubmissions } from '../fixtures/blueprints';
import { createTeamBlueprint } from '../fixtures/teams';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';
import { liveMark } from '../helpers/live';

let server: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
const people = ['owner', 'admin', 'member', 'viewer', 'outsider'] as const;
const leftovers: WsClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (const p of people) {
    tokens[p] = await server.rest.agentToken(p);
    ids[p] = await principalIdOf(server.gql, tokens[p]!);
  }
});
afterAll(async () => {
  await Promise.all(leftovers.map((c) => c.close().catch(() => undefined)));
  await server.close();
});

async function fullTeam(name = 'Team'): Promise<string> {
  return (
    await createTeam(
      server.rest,
      tokens.owner!,
      [
        [ids.admin!, 'admin'],
        [ids.member!, 'member'],
        [ids.viewer!, 'viewer'],
      ],
      name,
    )
  ).id;
}

describe('GET /api/teams', () => {
  it("lists the caller's teams with their role and what each holds, paginated", async () => {
    const first = await fullTeam('First');
    const second = (await createTeam(server.rest, tokens.viewer!, [[ids.member!, 'admin']], 'Second')).id;
    await createTeamBlueprint(server.rest, tokens.member!, first, { name: 'Held' });
    const mine = await server.rest.get('/api/teams?limit=100', { token: tokens.member });
    expect(mine.status).toBe(200);
    const byId = new Map(mine.body.items.map((t: any) => [t.id, t]));
    expect(byId.get(first)).toMatchObject({ name: 'First', role: 'member', member_count: 4, blueprint_count: 1, architecture_count: 0, conventions: '' });
    expect(byId.get(second)).toMatchObject({ name: 'Second', role: 'admin', member_count: 2 });
    const page = await server.rest.get('/api/teams?limit=1&offset=1', { token: tokens.member });
    expect(page.body).toMatchObject({ total: mine.body.total, limit: 1, offset: 1 });
    expect(page.body.items).toEqual([mine.body.items[1]]);
    expect((await server.rest.get('/api/teams?limit=0', { token: tokens.member })).status).toBe(400);
    expect((await server.rest.get('/api/teams')).status).toBe(401);
    const outsider = await server.rest.get('/api/teams', { token: tokens.outsider });
    expect(outsider.body.items.map((t: any) => t.id)).not.toContain(first);
  });
});

describe('PATCH /api/teams/:id', () => {
  it('renames the team and replaces its conventions (owner or admin)', async () => {
    const teamId = await fullTeam('Before');
    const res = await server.rest.patch(`/api/teams/${teamId}`, { token: tokens.admin, body: { name: '  After  ', conventions: 'Prefer small functions.' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: teamId, name: 'After', conventions: 'Prefer small functions.', viewer_role: 'admin' });
    const only = await server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body: { conventions: '' } });
    expect(only.body).toMatchObject({ name: 'After', conventions: '' });
  });

  it.each([
    ['an empty body', {}],
    ['a blank name', { name: '  ' }],
    ['conventions that are not a string', { conventions: 42 }],
    ['conventions over 20,000 characters', { conventions: 'x'.repeat(20_001) }],
    ['an unknown property', { owner: 'me' }],
  ])('rejects %s with 400 and changes nothing', async (_what, body) => {
    const teamId = await fullTeam('Unchanged');
    const res = await server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect((await server.rest.get(`/api/teams/${teamId}`, { token: tokens.owner })).body).toMatchObject({ name: 'Unchanged', conventions: '' });
  });
});

describe('read-scope tokens', () => {
  it('may read teams, audit log and analytics but change nothing', async () => {
    const person = await server.rest.signUp();
    const team = (await createTeam(server.rest, person.token, [], 'Read scope')).id;
    const read = await server.rest.accountToken(person.token, 'read');
    expect((await server.rest.get(`/api/teams/${team}/audit`, { token: read })).status).toBe(200);
    expect((await server.rest.get(`/api/teams/${team}/analytics`, { token: read })).status).toBe(200);
    const own = await createBlueprint(server.rest, person.token, { name: 'Read scope plan' });
    for (const res of [
      await server.rest.patch(`/api/teams/${team}`, { token: read, body: { conventions: 'x' } }),
      await server.rest.delete(`/api/teams/${team}`, { token: read }),
      await server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: read, body: { team_id: team } }),
    ])
      expect(res.status).toBe(403);
    expect((await server.rest.get(`/api/teams/${team}`, { token: read })).body.conventions).toBe('');
  });
});

describe('DELETE /api/teams/:id', () => {
  it('is refused with 409 naming the counts while the team holds things, and deletes it once they are moved out', async () => {
    const teamId = await fullTeam('Holding');
    const bp = await createTeamBlueprint(server.rest, tokens.member!, teamId, { name: 'Held blueprint' });
    const arch = await createArchitecture(server.rest, tokens.member!, { name: 'Held diagram' });
    await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.member, body: { team_id: teamId } });
    const refused = await server.rest.delete(`/api/teams/${teamId}`, { token: tokens.owner });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { blueprints: 1, architectures: 1 } });
    expect((await server.rest.get(`/api/teams/${teamId}`, { token: tokens.owner })).status).toBe(200);

    expect((await server.rest.post(`/api/blueprints/${bp.id}/transfer`, { token: tokens.owner, body: { team_id: null } })).status).toBe(200);
    expect((await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.owner, body: { team_id: null } })).status).toBe(200);
    expect((await server.rest.delete(`/api/teams/${teamId}`, { token: tokens.owner })).status).toBe(204);
    expect((await server.rest.get(`/api/teams/${teamId}`, { token: tokens.owner })).status).toBe(404);
    // Moved out, the blueprint is its owner's again.
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: tokens.member })).body).toMatchObject({ owner_id: ids.member, team_id: null });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: tokens.owner })).status).toBe(404);
  });
});

describe('POST /api/blueprints/:id/transfer', () => {
  it('shares a private blueprint with the team, lists it there, and takes it back out', async () => {
    const teamId = await fullTeam();
    const own = await createBlueprint(server.rest, tokens.admin!, { name: 'Mine to share', visibility: 'private' });
    expect((await server.rest.get(`/api/blueprints/${own.id}`, { token: tokens.viewer })).status).toBe(404);
    const moved = await server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.admin, body: { team_id: teamId } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: own.id, team_id: teamId, owner_id: ids.admin });
    expect((await server.rest.get(`/api/blueprints/${own.id}`, { token: tokens.viewer })).status).toBe(200);
    const listed = await server.rest.get(`/api/teams/${teamId}/blueprints`, { token: tokens.viewer });
    expect(listed.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(listed.body.items[0]).toMatchObject({ id: own.id, name: 'Mine to share', team_id: teamId, owner_id: ids.admin, visibility: 'private' });
    expect((await server.rest.get(`/api/teams/${teamId}/blueprints`, { token: tokens.outsider })).status).toBe(404);

    expect((await server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.owner, body: { team_id: null } })).status).toBe(200);
    expect((await server.rest.get(`/api/blueprints/${own.id}`, { token: tokens.viewer })).status).toBe(404);
    expect((await server.rest.get(`/api/teams/${teamId}/blueprints`, { token: tokens.viewer })).body.total).toBe(0);
  });

  it.each([
    ['no team_id', {}],
    ['a team_id that is not a UUID', { team_id: 'team' }],
    ['an unknown property', { team_id: null, force: true }],
  ])('rejects %s with 400', async (_what, body) => {
    const own = await createBlueprint(server.rest, tokens.admin!, { name: 'Bad transfer' });
    const res = await server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.admin, body });
    expect(res.status).toBe(400);
  });

  it("is 403 for someone else's public blueprint and 404 for an unknown team", async () => {
    const teamId = await fullTeam();
    const theirs = await createBlueprint(server.rest, tokens.outsider!, { name: 'Not yours' });
    expect((await server.rest.post(`/api/blueprints/${theirs.id}/transfer`, { token: tokens.member, body: { team_id: teamId } })).status).toBe(403);
    const own = await createBlueprint(server.rest, tokens.member!, { name: 'Nowhere to go' });
    expect(
      (await server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.member, body: { team_id: '00000000-0000-4000-8000-000000000000' } }))
        .status,
    ).toBe(404);
  });

  it('ends the live stream of a member who loses sight of the blueprint, and tells those who keep it', async () => {
    const teamId = await fullTeam();
    const shared = await createTeamBlueprint(server.rest, tokens.admin!, teamId, { name: 'Watched' });
    const ws = (token: string) => {
      const c = connectWs(server.url, token);
      leftovers.push(c);
      return c;
    };
    const mark = liveMark(server);
    const members = ws(tokens.member!).subscribe(BlueprintActivityDocument, { id: shared.id });
    const owners = ws(tokens.admin!).subscribe(BlueprintActivityDocument, { id: shared.id });
    await mark.streaming(2);
    expect((await server.rest.post(`/api/blueprints/${shared.id}/transfer`, { token: tokens.owner, body: { team_id: null } })).status).toBe(200);
    const ended = await members.next();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await owners.next()).data!.blueprintActivity).toMatchObject({ kind: 'TRANSFERRED', blueprintId: shared.id, subjectId: null });
  });
});

describe('creating a blueprint directly in a team (create tool, last step)', () => {
  async function toLastStep(token: string) {
    let current = (await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'create', params: {} } })).body;
    for (const submission of createSubmissions().slice(0, 4)) {
      current = (await server.rest.post(`/api/tools/operations/${current.operation_id}/submit`, { token, body: { token: current.token, submission } })).body;
    }
    return current;
  }

  it('refuses a team where the caller is a viewer (403) or not a member (404), and the step can be redone', async () => {
    const teamId = await fullTeam();
    const foreign = (await createTeam(server.rest, tokens.outsider!, [], 'Foreign')).id;
    const op = await toLastStep(tokens.viewer!);
    expect(op.submission_schema.properties.team_id).toBeDefined();
    const last = { ...createSubmissions({ name: 'Viewer made' })[4] };
    const asViewer = await server.rest.post(`/api/tools/operations/${op.operation_id}/submit`, {
      token: tokens.viewer,
      body: { token: op.token, submission: { ...last, team_id: teamId } },
    });
    expect(asViewer.status).toBe(403);
    const foreignTeam = await server.rest.post(`/api/tools/operations/${op.operation_id}/submit`, {
      token: tokens.viewer,
      body: { token: op.token, submission: { ...last, team_id: foreign } },
    });
    expect(foreignTeam.status).toBe(404);
    const personal = await server.rest.post(`/api/tools/operations/${op.operation_id}/submit`, {
      token: tokens.viewer,
      body: { token: op.token, submission: last },
    });
    expect(personal.status).toBe(200);
    const made = await server.rest.get(`/api/blueprints/${personal.body.result.blueprint_ids[0]}`, { token: tokens.viewer });
    expect(made.body.team_id).toBeNull();
  });

  it('puts the blueprint in the team for a member', async () => {
    const teamId = await fullTeam();
    const bp = await createTeamBlueprint(server.rest, tokens.member!, teamId, { name: 'Team made' });
    expect(bp).toMatchObject({ team_id: teamId, owner_id: ids.member, visibility: 'private' });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: tokens.viewer })).status).toBe(200);
  });
});

describe('conventions in the execution prompt', () => {
  it('reach runs started after the edit; a run already started keeps the prompt it started with', async () => {
    const teamId = await fullTeam();
    await server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body: { conventions: 'Write tests first.' } });
    const bp = await createTeamBlueprint(server.rest, tokens.member!, teamId, { name: 'Conventional' });
    const before = await server.rest.get(`/api/blueprints/${bp.id}/start`, { token: tokens.viewer });
    expect(before.status).toBe(200);
    expect(before.body.system_prompt).toContain('Write tests first.');

    await server.rest.patch(`/api/teams/${teamId}`, { token: tokens.admin, body: { conventions: 'Use snake_case everywhere.' } });
    const after = await server.rest.get(`/api/blueprints/${bp.id}/start`, { token: tokens.viewer });
    expect(after.body.system_prompt).toContain('Use snake_case everywhere.');
    expect(after.body.system_prompt).not.toContain('Write tests first.');

    const oldRun = await server.rest.get(`/api/executions/${before.body.run_id}`, { token: tokens.viewer });
    expect(oldRun.body.system_prompt).toBe(before.body.system_prompt);
    const newRun = await server.rest.get(`/api/executions/${after.body.run_id}`, { token: tokens.viewer });
    expect(newRun.body.system_prompt).toBe(after.body.system_prompt);

    // Out of the team, no conventions at all.
    await server.rest.post(`/api/blueprints/${bp.id}/transfer`, { token: tokens.owner, body: { team_id: null } });
    const outside = await server.rest.get(`/api/blueprints/${bp.id}/start`, { token: tokens.member });
    expect(outside.body.system_prompt).not.toContain('Use snake_case everywhere.');
  });
});

describe('teams over GraphQL', () => {
  it('viewer.teams, Team contents, updateTeam, transferBlueprint and deleteTeam follow the same rules', async () => {
    const { gql } = server;
    const teamId = await fullTeam('GraphQL');
    const teams = (await gql.ok(ViewerTeamsDocument, {}, tokens.viewer)).viewer!.teams;
    expect(teams).toContainEqual({ id: teamId, name: 'GraphQL', viewerRole: 'VIEWER' });

    const updated = await gql.ok(UpdateTeamDocument, { id: teamId, conventions: 'Be kind.' }, tokens.admin);
    expect(updated.updateTeam).toEqual({ id: teamId, name: 'GraphQL', conventions: 'Be kind.' });
    const refused = await gql.request(UpdateTeamDocument, { id: teamId, name: 'Mine' }, tokens.member);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const own = await createBlueprint(server.rest, tokens.member!, { name: 'GraphQL moved', visibility: 'public' });
    const moved = await gql.ok(TransferBlueprintDocument, { id: own.id, teamId }, tokens.member);
    expect(moved.transferBlueprint).toEqual({ id: own.id, team: { id: teamId } });
    const contents = (await gql.ok(TeamContentsDocument, { id: teamId }, tokens.viewer)).team!;
    expect(contents.conventions).toBe('Be kind.');
    expect(contents.blueprints.totalCount).toBe(1);
    expect(contents.blueprints.edges[0]!.node).toEqual({ id: own.id, name: 'GraphQL moved', team: { id: teamId } });
    // A public team blueprint does not open its team to outsiders.
    expect((await gql.ok(BlueprintTeamDocument, { id: own.id }, tokens.outsider)).blueprint).toEqual({ id: own.id, team: null });

    const audit = await gql.ok(TeamAuditLogDocument, { id: teamId, first: 2, action: null }, tokens.member);
    expect(audit.team!.auditLog.edges.map((e) => e.node.action)).toEqual(['blueprint.transferred_in', 'team.updated']);
    expect(audit.team!.auditLog.edges[0]!.node.actor).toEqual({ id: ids.member, name: 'member' });
    expect(audit.team!.auditLog.pageInfo.hasNextPage).toBe(true);
    const filtered = await gql.ok(TeamAuditLogDocument, { id: teamId, action: 'member.added' }, tokens.member);
    expect(filtered.team!.auditLog.totalCount).toBe(3);
    const asViewer = await gql.request(TeamAuditLogDocument, { id: teamId }, tokens.viewer);
    expect(asViewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const busy = await gql.request(DeleteTeamDocument, { id: teamId }, tokens.owner);
    expect(busy.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', details: { blueprints: 1, architectures: 0 } });
    expect((await gql.request(TransferBlueprintDocument, { id: own.id, teamId: null }, tokens.member)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    await gql.ok(TransferBlueprintDocument, { id: own.id, teamId: null }, tokens.owner);
    expect((await gql.request(DeleteTeamDocument, { id: teamId }, tokens.admin)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql.ok(DeleteTeamDocument, { id: teamId }, tokens.owner)).deleteTeam).toBe(true);
    expect((await gql.ok(ViewerTeamsDocument, {}, tokens.viewer)).viewer!.teams.map((t) => t.id)).not.toContain(teamId);
  });
});
