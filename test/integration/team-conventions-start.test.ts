import { createTeam } from '../fixtures/architectures';
import { createTeamBlueprint } from '../fixtures/teams';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 10: starting a run of a public team blueprint gives the team's name and conventions
 * only to the team's members (the team is a 404 to anyone else), over REST, MCP and GraphQL.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const TEAM = 'Secret Skunkworks';
const CONVENTIONS = 'Always name things after birds (internal rule 7b).';

it('keeps the team and its conventions out of a stranger’s system prompt, and gives them to a member', async () => {
  const owner = await server.rest.signUp();
  const member = await server.rest.signUp();
  const stranger = await server.rest.signUp();
  const team = await createTeam(server.rest, owner.token, [[member.id, 'viewer']], TEAM);
  expect((await server.rest.patch(`/api/teams/${team.id}`, { token: owner.token, body: { conventions: CONVENTIONS } })).status).toBe(200);
  const bp = await createTeamBlueprint(server.rest, owner.token, team.id, { visibility: 'public' });
  expect((await server.rest.get(`/api/teams/${team.id}`, { token: stranger.token })).status).toBe(404);

  const prompts = async (token: string) => {
    const rest = await server.rest.get(`/api/blueprints/${bp.id}/start`, { token });
    expect(rest.status).toBe(200);
    const mcp = mcpResultBody(await mcpCall(server.url, token, 'blueprint_execute_start', { blueprint_id: bp.id }));
    const gql = (await server.gql.ok('mutation($id: ID!) { startExecution(blueprintId: $id) { systemPrompt } }', { id: bp.id }, token)) as any;
    return [rest.body.system_prompt as string, mcp.system_prompt as string, gql.startExecution.systemPrompt as string];
  };
  for (const prompt of await prompts(stranger.token)) {
    expect(prompt).toEqual(expect.any(String));
    expect(prompt).not.toContain(TEAM);
    expect(prompt).not.toContain(CONVENTIONS);
  }
  for (const prompt of await prompts(member.token)) {
    expect(prompt).toContain(TEAM);
    expect(prompt).toContain(CONVENTIONS);
  }
});
