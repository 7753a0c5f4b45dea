import { createTeam, sql } from '../fixtures/architectures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 3: two hand-overs of ownership sent at once must leave exactly one owner. The role
 * of the caller is read after the team row is locked, so the second hand-over sees that its caller is
 * no longer the owner and is refused.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function owners(teamId: string): Promise<string[]> {
  const rows = await sql<{ principal_id: string }>(server.databaseUrl, `select principal_id from team_member where team_id = $1 and role = 'owner'`, [teamId]);
  return rows.map((r) => r.principal_id);
}

const handOverMutation = `mutation($teamId: ID!, $principalId: ID!) { updateTeamMember(teamId: $teamId, principalId: $principalId, role: OWNER) { id } }`;

describe('two concurrent hand-overs of ownership', () => {
  it('leaves exactly one owner over REST, round after round', async () => {
    const owner = await server.rest.signUp();
    const b = await server.rest.signUp();
    const c = await server.rest.signUp();
    for (let round = 0; round < 6; round++) {
      const team = await createTeam(server.rest, owner.token, [
        [b.id, 'admin'],
        [c.id, 'member'],
      ]);
      const answers = await Promise.all(
        [b.id, c.id].map((target) => server.rest.patch(`/api/teams/${team.id}/members/${target}`, { token: owner.token, body: { role: 'owner' } })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
      expect(await owners(team.id)).toHaveLength(1);
    }
  });

  it('leaves exactly one owner over GraphQL, round after round', async () => {
    const owner = await server.rest.signUp();
    const b = await server.rest.signUp();
    const c = await server.rest.signUp();
    for (let round = 0; round < 6; round++) {
      const team = await createTeam(server.rest, owner.token, [
        [b.id, 'admin'],
        [c.id, 'member'],
      ]);
      const answers = await Promise.all([b.id, c.id].map((principalId) => server.gql.request(handOverMutation, { teamId: team.id, principalId }, owner.token)));
      const codes = answers.map((a) => a.errors?.[0]?.extensions?.code ?? 'OK').sort();
      expect(codes).toEqual(['FORBIDDEN', 'OK']);
      expect(await owners(team.id)).toHaveLength(1);
    }
  });
});
