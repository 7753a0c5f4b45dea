import { createArchitecture, createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { startTool, submit } from '../fixtures/tools';
import { auditOf, createTeamBlueprint } from '../fixtures/teams';
import type { RestResponse } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
let db: SqlClient;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
const people = ['owner', 'admin', 'member', 'viewer', 'outsider', 'newcomer'] as const;

beforeAll(async () => {
  server = await startTestServer();
  db = await SqlClient.connect(server.databaseUrl);
  for (const p of people) {
    tokens[p] = await server.rest.agentToken(p);
    ids[p] = await principalIdOf(server.gql, tokens[p]!);
  }
});
afterAll(async () => {
  await db.close();
  await server.close();
});

async function fullTeam(name = 'Audited'): Promise<string> {
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

const entriesOf = (teamId: string) => db.count('team_audit_entry', 'team_id = $1', [teamId]);

/**
 * Runs a change and checks it left exactly one new entry in `teamId`'s log, the newest, with the actor,
 * action and target given; returns that entry.
 */
async function expectOneEntry(
  teamId: string,
  change: () => Promise<RestResponse>,
  expected: { actor: string; action: string; targetType: string; targetId: () => string; status: number },
): Promise<any> {
  const before = await entriesOf(teamId);
  const res = await change();
  expect(res.status).toBe(expected.status);
  expect(await entriesOf(teamId)).toBe(before + 1);
  const [newest] = await auditOf(server.rest, tokens.owner!, teamId);
  expect(newest).toMatchObject({
    actor: { id: ids[expected.actor], name: expected.actor },
    action: expected.action,
    target_type: expected.targetType,
    target_id: expected.targetId(),
  });
  expect(Object.keys(newest).sort()).toEqual(['action', 'actor', 'at', 'details', 'id', 'target_id', 'target_type']);
  return newest;
}

describe('audit entries: one per change, right actor and target', () => {
  it('records the team, member and conventions changes', async () => {
    const created = await server.rest.post('/api/teams', { token: tokens.owner, body: { name: 'Fresh' } });
    const teamId = created.body.id as string;
    expect(await auditOf(server.rest, tokens.owner!, teamId)).toEqual([
      expect.objectContaining({
        action: 'team.created',
        actor: { id: ids.owner, name: 'owner' },
        target_type: 'team',
        target_id: teamId,
        details: { name: 'Fresh' },
      }),
    ]);
    const add = (who: string, role: string) => () =>
      server.rest.post(`/api/teams/${teamId}/members`, { token: tokens.owner, body: { principal_id: ids[who], role } });
    await expectOneEntry(teamId, add('admin', 'admin'), {
      actor: 'owner',
      action: 'member.added',
      targetType: 'member',
      targetId: () => ids.admin!,
      status: 201,
    });
    await expectOneEntry(teamId, add('member', 'viewer'), {
      actor: 'owner',
      action: 'member.added',
      targetType: 'member',
      targetId: () => ids.member!,
      status: 201,
    });
    const changed = await expectOneEntry(
      teamId,
      () => server.rest.patch(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.admin, body: { role: 'member' } }),
      { actor: 'admin', action: 'member.role_changed', targetType: 'member', targetId: () => ids.member!, status: 200 },
    );
    expect(changed.details).toEqual({ from: 'viewer', to: 'member' });
    const patched = await expectOneEntry(
      teamId,
      () => server.rest.patch(`/api/teams/${teamId}`, { token: tokens.admin, body: { name: 'Renamed', conventions: 'Use tabs.' } }),
      { actor: 'admin', action: 'team.updated', targetType: 'team', targetId: () => teamId, status: 200 },
    );
    expect(patched.details).toEqual({ name: { from: 'Fresh', to: 'Renamed' }, conventions: { from: '', to: 'Use tabs.' } });
    await expectOneEntry(teamId, () => server.rest.patch(`/api/teams/${teamId}/members/${ids.admin}`, { token: tokens.owner, body: { role: 'owner' } }), {
      actor: 'owner',
      action: 'team.owner_changed',
      targetType: 'member',
      targetId: () => ids.admin!,
      status: 200,
    });
    await expectOneEntry(teamId, () => server.rest.delete(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.member }), {
      actor: 'member',
      action: 'member.removed',
      targetType: 'member',
      targetId: () => ids.member!,
      status: 204,
    });
    // Deleting: the entry is written with the deletion and kept (nobody can read the team any more).
    const before = await entriesOf(teamId);
    expect((await server.rest.delete(`/api/teams/${teamId}`, { token: tokens.admin })).status).toBe(204);
    const rows = await db.query('select action, actor_id, target_id from team_audit_entry where team_id = $1 order by seq desc limit 1', [teamId]);
    expect(await entriesOf(teamId)).toBe(before + 1);
    expect(rows[0]).toEqual({ action: 'team.deleted', actor_id: ids.admin, target_id: teamId });
  });

  it('records team blueprints and architectures: created in the team, transfers, INPLACE tools, edits', async () => {
    const teamId = await fullTeam();
    const otherTeam = await fullTeam('Other');
    const before = await entriesOf(teamId);
    const made = await createTeamBlueprint(server.rest, tokens.member!, teamId, { name: 'Born in the team' });
    expect(await entriesOf(teamId)).toBe(before + 1);
    expect((await auditOf(server.rest, tokens.owner!, teamId))[0]).toMatchObject({
      action: 'blueprint.created',
      actor: { id: ids.member },
      target_type: 'blueprint',
      target_id: made.id,
    });

    const own = await createBlueprint(server.rest, tokens.admin!, { name: 'Brought in', visibility: 'private' });
    const inEntry = await expectOneEntry(
      teamId,
      () => server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.admin, body: { team_id: teamId } }),
      {
        actor: 'admin',
        action: 'blueprint.transferred_in',
        targetType: 'blueprint',
        targetId: () => own.id,
        status: 200,
      },
    );
    expect(inEntry.details).toEqual({ from_team_id: null });

    const op = await startTool(server.rest, tokens.member!, 'fuzz', [made.id]);
    const tool = await expectOneEntry(
      teamId,
      () => submit(server.rest, tokens.member!, op, { checks: [{ step_key: 'endpoints', acceptance: ['rejects bad input'] }] }),
      {
        actor: 'member',
        action: 'blueprint.tool_applied',
        targetType: 'blueprint',
        targetId: () => made.id,
        status: 200,
      },
    );
    expect(tool.details).toEqual({ tool_type: 'fuzz', operation_id: op.operation_id, version: 2 });

    // Between teams: one entry in each.
    const otherBefore = await entriesOf(otherTeam);
    const out = await expectOneEntry(
      teamId,
      () => server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.owner, body: { team_id: otherTeam } }),
      {
        actor: 'owner',
        action: 'blueprint.transferred_out',
        targetType: 'blueprint',
        targetId: () => own.id,
        status: 200,
      },
    );
    expect(out.details).toEqual({ to_team_id: otherTeam });
    expect(await entriesOf(otherTeam)).toBe(otherBefore + 1);
    expect((await auditOf(server.rest, tokens.owner!, otherTeam))[0]).toMatchObject({ action: 'blueprint.transferred_in', details: { from_team_id: teamId } });

    const arch = await createArchitecture(server.rest, tokens.member!, { name: 'Team diagram', visibility: 'private' });
    await expectOneEntry(teamId, () => server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.member, body: { team_id: teamId } }), {
      actor: 'member',
      action: 'architecture.transferred_in',
      targetType: 'architecture',
      targetId: () => arch.id,
      status: 200,
    });
    const edited = await expectOneEntry(
      teamId,
      () => server.rest.post(`/api/architectures/${arch.slug}/nodes`, { token: tokens.admin, body: { blueprint_id: made.id } }),
      {
        actor: 'admin',
        action: 'architecture.changed',
        targetType: 'architecture',
        targetId: () => arch.id,
        status: 201,
      },
    );
    expect(edited.details).toMatchObject({ change: 'node_added' });

    // Metadata edits and deletions of team blueprints and architectures (DESIGN 11's PATCH / DELETE).
    const bpEdit = await expectOneEntry(
      teamId,
      () => server.rest.patch(`/api/blueprints/${made.id}`, { token: tokens.member, body: { name: 'Renamed in the team', tags: ['api'] } }),
      {
        actor: 'member',
        action: 'blueprint.edited',
        targetType: 'blueprint',
        targetId: () => made.id,
        status: 200,
      },
    );
    expect(bpEdit.details).toEqual({ changes: { name: { from: 'Born in the team', to: 'Renamed in the team' }, tags: { from: [], to: ['api'] } } });
    const archEdit = await expectOneEntry(
      teamId,
      () => server.rest.patch(`/api/architectures/${arch.slug}`, { token: tokens.admin, body: { description: 'Now described' } }),
      {
        actor: 'admin',
        action: 'architecture.edited',
        targetType: 'architecture',
        targetId: () => arch.id,
        status: 200,
      },
    );
    expect(archEdit.details).toEqual({ changes: { description: { from: '', to: 'Now described' } } });
    await expectOneEntry(teamId, () => server.rest.delete(`/api/architectures/${arch.slug}`, { token: tokens.admin }), {
      actor: 'admin',
      action: 'architecture.deleted',
      targetType: 'architecture',
      targetId: () => arch.id,
      status: 204,
    });
    const bpGone = await expectOneEntry(teamId, () => server.rest.delete(`/api/blueprints/${made.id}`, { token: tokens.owner }), {
      actor: 'owner',
      action: 'blueprint.deleted',
      targetType: 'blueprint',
      targetId: () => made.id,
      status: 204,
    });
    expect(bpGone.details).toEqual({ name: 'Renamed in the team', slug: made.slug });
  });

  it('writes nothing for a refused, invalid or failed change, nor for a change that changes nothing', async () => {
    const teamId = await fullTeam();
    const held = await createTeamBlueprint(server.rest, tokens.member!, teamId, { name: 'Keeps the team alive' });
    const own = await createBlueprint(server.rest, tokens.viewer!, { name: 'Viewer own', visibility: 'private' });
    const arch = await createArchitecture(server.rest, tokens.outsider!, { name: 'Outside' });
    const attempts: Array<[string, () => Promise<RestResponse>, number]> = [
      ['conventions by a member', () => server.rest.patch(`/api/teams/${teamId}`, { token: tokens.member, body: { conventions: 'x' } }), 403],
      ['conventions too long', () => server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body: { conventions: 'x'.repeat(20_001) } }), 400],
      ['an empty PATCH', () => server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body: {} }), 400],
      ['the same name again', () => server.rest.patch(`/api/teams/${teamId}`, { token: tokens.owner, body: { name: 'Audited' } }), 200],
      ['deleting a team that holds a blueprint', () => server.rest.delete(`/api/teams/${teamId}`, { token: tokens.owner }), 409],
      ['deleting by an admin', () => server.rest.delete(`/api/teams/${teamId}`, { token: tokens.admin }), 403],
      ['a viewer transferring in', () => server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens.viewer, body: { team_id: teamId } }), 403],
      ['a member transferring out', () => server.rest.post(`/api/blueprints/${held.id}/transfer`, { token: tokens.member, body: { team_id: null } }), 403],
      ['a transfer to the same team', () => server.rest.post(`/api/blueprints/${held.id}/transfer`, { token: tokens.member, body: { team_id: teamId } }), 200],
      [
        'an outsider transferring an architecture in',
        () => server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.outsider, body: { team_id: teamId } }),
        404,
      ],
      [
        'adding someone already in',
        () => server.rest.post(`/api/teams/${teamId}/members`, { token: tokens.owner, body: { principal_id: ids.member, role: 'viewer' } }),
        409,
      ],
      [
        'a viewer adding a member',
        () => server.rest.post(`/api/teams/${teamId}/members`, { token: tokens.viewer, body: { principal_id: ids.newcomer, role: 'viewer' } }),
        403,
      ],
      [
        'a role changed to itself',
        () => server.rest.patch(`/api/teams/${teamId}/members/${ids.member}`, { token: tokens.owner, body: { role: 'member' } }),
        200,
      ],
      ['removing the owner', () => server.rest.delete(`/api/teams/${teamId}/members/${ids.owner}`, { token: tokens.admin }), 403],
      [
        'a viewer editing a team blueprint',
        () => server.rest.patch(`/api/blueprints/${held.id}`, { token: tokens.viewer, body: { name: 'Viewer was here' } }),
        403,
      ],
      ['a viewer deleting a team blueprint', () => server.rest.delete(`/api/blueprints/${held.id}`, { token: tokens.viewer }), 403],
      [
        'an edit that changes nothing',
        () => server.rest.patch(`/api/blueprints/${held.id}`, { token: tokens.member, body: { name: 'Keeps the team alive' } }),
        200,
      ],
    ];
    const before = await db.count('team_audit_entry');
    for (const [what, attempt, status] of attempts) {
      const res = await attempt();
      expect({ what, status: res.status }).toEqual({ what, status });
    }
    // A viewer's INPLACE tool is refused at start; a tool whose source moved on fails at its last step.
    expect(
      (await server.rest.post('/api/tools/operations', { token: tokens.viewer, body: { tool_type: 'fuzz', source_blueprint_ids: [held.id] } })).status,
    ).toBe(403);
    const first = await startTool(server.rest, tokens.member!, 'fuzz', [held.id]);
    const second = await startTool(server.rest, tokens.admin!, 'fuzz', [held.id]);
    expect((await submit(server.rest, tokens.member!, first, { checks: [{ step_key: 'schema', acceptance: ['one'] }] })).status).toBe(200);
    const stale = await submit(server.rest, tokens.admin!, second, { checks: [{ step_key: 'schema', acceptance: ['two'] }] });
    expect(stale.status).toBe(409);
    expect(await db.count('team_audit_entry')).toBe(before + 1); // the member's tool run only
  });
});

describe('ownership changes by a claim', () => {
  it('records one entry per team blueprint and architecture a person takes over from an agent session', async () => {
    const agent = await server.rest.agentSession('claimed agent');
    const teamId = (await createTeam(server.rest, agent.token, [[ids.member!, 'member']], 'Agent team')).id;
    const bp = await createTeamBlueprint(server.rest, agent.token, teamId, { name: 'Agent made' });
    await createBlueprint(server.rest, agent.token, { name: 'Agent personal' }); // not a team's: not audited
    const arch = await createArchitecture(server.rest, agent.token, { name: 'Agent diagram' });
    await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: agent.token, body: { team_id: teamId } });
    const person = await server.rest.signUp();
    const before = await entriesOf(teamId);
    expect((await server.rest.post('/api/account/claim', { token: person.token, body: { agent_token: agent.token } })).status).toBe(200);
    expect(await entriesOf(teamId)).toBe(before + 2);
    const entries = (await auditOf(server.rest, tokens.member!, teamId)).slice(0, 2);
    expect(entries.map((e) => [e.action, e.target_id, e.actor.id, e.details])).toEqual(
      expect.arrayContaining([
        ['blueprint.owner_changed', bp.id, person.id, { from_owner_id: agent.id, to_owner_id: person.id, cause: 'claim' }],
        ['architecture.owner_changed', arch.id, person.id, { from_owner_id: agent.id, to_owner_id: person.id, cause: 'claim' }],
      ]),
    );
  });
});

describe('the audit log is append-only at the database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE on the table, from any SQL client', async () => {
    const teamId = await fullTeam();
    const before = await db.query('select * from team_audit_entry where team_id = $1 order by seq', [teamId]);
    expect(before.length).toBeGreaterThan(0);
    await expect(db.query(`update team_audit_entry set action = 'forged' where team_id = $1`, [teamId])).rejects.toThrow(/append-only/);
    await expect(db.query('delete from team_audit_entry where team_id = $1', [teamId])).rejects.toThrow(/append-only/);
    await expect(db.query('truncate team_audit_entry')).rejects.toThrow(/append-only/);
    expect(await db.query('select * from team_audit_entry where team_id = $1 order by seq', [teamId])).toEqual(before);
  });
});

describe('GET /api/teams/:id/audit', () => {
  it('pages newest first and filters by action', async () => {
    const teamId = await fullTeam();
    const all = await auditOf(server.rest, tokens.member!, teamId);
    expect(all.map((e) => e.action)).toEqual(['member.added', 'member.added', 'member.added', 'team.created']);
    expect(all.map((e) => e.target_id)).toEqual([ids.viewer, ids.member, ids.admin, teamId]);
    const page = await server.rest.get(`/api/teams/${teamId}/audit?limit=2&offset=1`, { token: tokens.admin });
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.items.map((e: any) => e.id)).toEqual(all.slice(1, 3).map((e) => e.id));
    const added = await server.rest.get(`/api/teams/${teamId}/audit?action=member.added`, { token: tokens.owner });
    expect(added.body.total).toBe(3);
    expect(added.body.items.every((e: any) => e.action === 'member.added')).toBe(true);
  });

  it('is 403 to viewers, 404 to outsiders, 400 for an unknown action or a bad page, 401 anonymous', async () => {
    const teamId = await fullTeam();
    expect((await server.rest.get(`/api/teams/${teamId}/audit`, { token: tokens.viewer })).status).toBe(403);
    expect((await server.rest.get(`/api/teams/${teamId}/audit`, { token: tokens.outsider })).status).toBe(404);
    expect((await server.rest.get(`/api/teams/${teamId}/audit?action=team.hacked`, { token: tokens.owner })).status).toBe(400);
    expect((await server.rest.get(`/api/teams/${teamId}/audit?limit=101`, { token: tokens.owner })).status).toBe(400);
    expect((await server.rest.get(`/api/teams/${teamId}/audit`)).status).toBe(401);
  });
});
