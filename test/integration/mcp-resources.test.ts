import { createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/** Blueprints as MCP resources and the two prompts, through the SDK client (docs/transfer.md). */
let server: TestServer;
let owner: McpTestClient;
let stranger: McpTestClient;
let pub: any;
let priv: any;
beforeAll(async () => {
  server = await startTestServer();
  const ownerToken = await server.rest.agentToken('owner');
  owner = await McpTestClient.connect(server.url, ownerToken);
  stranger = await McpTestClient.connect(server.url, await server.rest.agentToken('stranger'));
  pub = await createBlueprint(server.rest, ownerToken, { name: 'Open plan' });
  priv = await createBlueprint(server.rest, ownerToken, { name: 'Closed plan', visibility: 'private' });
});
afterAll(async () => {
  await owner.close();
  await stranger.close();
  await server.close();
});

const uri = (id: string) => `blueprint://${id}/AGENTS.md`;

describe('resources', () => {
  it('offers a URI template, and lists only blueprints the caller may read (its own)', async () => {
    const { resourceTemplates } = await owner.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['blueprint://{blueprint}/AGENTS.md']);
    const mine = (await owner.client.listResources()).resources.map((r) => r.uri);
    expect(mine).toEqual(expect.arrayContaining([uri(pub.id), uri(priv.id)]));
    const theirs = (await stranger.client.listResources()).resources.map((r) => r.uri);
    expect(theirs).not.toContain(uri(priv.id));
  });

  it('reads a readable blueprint as its AGENTS.md, by id or slug', async () => {
    for (const ref of [pub.id, pub.slug]) {
      const read = await stranger.client.readResource({ uri: uri(ref) });
      expect(read.contents[0]).toMatchObject({ uri: uri(ref), mimeType: 'text/markdown' });
      expect((read.contents[0] as any).text).toContain(`id: "${pub.id}"`);
    }
    const own = await owner.client.readResource({ uri: uri(priv.id) });
    expect((own.contents[0] as any).text).toContain('## Module `db`');
  });

  it('answers a private blueprint to others exactly as one that does not exist: resource not found', async () => {
    const errorOf = async (u: string) =>
      await stranger.client.readResource({ uri: u }).then(
        () => null,
        (e) => ({ code: e.code, message: e.message }),
      );
    const hidden = await errorOf(uri(priv.id));
    const missing = await errorOf(uri('6f1c7a3e-0d2b-4c5e-9a8f-123456789abc'));
    expect(hidden).toEqual({ code: -32002, message: expect.stringContaining('Resource not found') });
    expect(hidden!.message.replace(priv.id, 'X')).toBe(missing!.message.replace('6f1c7a3e-0d2b-4c5e-9a8f-123456789abc', 'X'));
    // By slug too, and for text that is no blueprint reference at all (bad percent-encoding): never an internal error.
    expect(await errorOf(uri(priv.slug))).toEqual({ code: -32002, message: hidden!.message.replace(priv.id, priv.slug) });
    expect(await errorOf(uri('%E0%A4%A'))).toEqual({ code: -32002, message: hidden!.message.replace(priv.id, '%E0%A4%A') });
  });

  it("lists and reads a team's private blueprint for its members only, and not after one leaves", async () => {
    const ownerToken = await server.rest.agentToken('team owner');
    const memberToken = await server.rest.agentToken('team member');
    const memberId = await principalIdOf(server.gql, memberToken);
    const team = await createTeam(server.rest, ownerToken, [[memberId, 'viewer']], 'Resource team');
    const teamPlan = await createBlueprint(server.rest, ownerToken, { name: 'Team only plan', visibility: 'private' });
    expect((await server.rest.post(`/api/blueprints/${teamPlan.id}/transfer`, { token: ownerToken, body: { team_id: team.id } })).status).toBe(200);
    const member = await McpTestClient.connect(server.url, memberToken);
    try {
      expect((await member.client.listResources()).resources.map((r) => r.uri)).toContain(uri(teamPlan.id));
      expect(((await member.client.readResource({ uri: uri(teamPlan.slug) })).contents[0] as any).text).toContain(`id: "${teamPlan.id}"`);
      expect((await stranger.client.listResources()).resources.map((r) => r.uri)).not.toContain(uri(teamPlan.id));
      await expect(stranger.client.readResource({ uri: uri(teamPlan.id) })).rejects.toMatchObject({ code: -32002 });
      expect((await server.rest.delete(`/api/teams/${team.id}/members/${memberId}`, { token: ownerToken })).status).toBeLessThan(300);
      expect((await member.client.listResources()).resources.map((r) => r.uri)).not.toContain(uri(teamPlan.id));
      await expect(member.client.readResource({ uri: uri(teamPlan.id) })).rejects.toMatchObject({ code: -32002 });
    } finally {
      await member.close();
    }
  });
});

describe('prompts', () => {
  it('lists "execute this blueprint" and "propose my changes upstream"', async () => {
    const { prompts } = await owner.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['execute_blueprint', 'propose_upstream']);
  });

  it('execute_blueprint names the right first calls: start, then step n = 1 with next_token', async () => {
    const got = await stranger.client.getPrompt({ name: 'execute_blueprint', arguments: { blueprint_id: pub.slug } });
    const text = (got.messages[0]!.content as any).text as string;
    expect(text).toContain(`blueprint_execute_start {blueprint_id: "${pub.id}"}`);
    expect(text).toContain(`blueprint_execute_step {blueprint_id: "${pub.id}", n: 1, token: <next_token>}`);
    await expect(stranger.client.getPrompt({ name: 'execute_blueprint', arguments: { blueprint_id: priv.id } })).rejects.toMatchObject({ code: -32002 });
  });

  it('propose_upstream names compare and proposal_open with the parent and the fork', async () => {
    const forkerToken = await server.rest.agentToken('forker');
    const mine = await fork(server.rest, forkerToken, pub.id);
    const forker = await McpTestClient.connect(server.url, forkerToken);
    const got = await forker.client.getPrompt({ name: 'propose_upstream', arguments: { blueprint_id: mine.id } });
    await forker.close();
    const text = (got.messages[0]!.content as any).text as string;
    expect(text).toContain(`blueprint_compare {blueprint_id: "${mine.id}"}`);
    expect(text).toContain(`proposal_open with the target "${pub.id}", source_blueprint_id "${mine.id}"`);
  });
});
