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

/** The text of a prompt. */
async function promptText(client: McpTestClient, name: string, args: Record<string, string>): Promise<string> {
  const got = await client.client.getPrompt({ name, arguments: args });
  return (got.messages[0]!.content as any).text as string;
}

/**
 * `tool {name: value, ...}` occurrences in a prompt: JSON values as given, `<placeholder>` kept as text for
 * the caller to fill (the answer field or the text it names).
 */
function callsIn(text: string, tool: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (const m of text.matchAll(new RegExp(`${tool} \\{((?:"(?:[^"\\\\]|\\\\.)*"|[^}"])*)\\}`, 'g'))) {
    const args: Record<string, unknown> = {};
    for (const a of m[1]!.matchAll(/([a-z_]+): ("(?:[^"\\]|\\.)*"|<[^>]*>|\[[^\]]*\]|[^,]+)/g)) args[a[1]!] = a[2]!.startsWith('<') ? a[2]! : JSON.parse(a[2]!);
    found.push(args);
  }
  return found;
}

describe('prompts', () => {
  it('lists "execute this blueprint" and "propose my changes upstream"', async () => {
    const { prompts } = await owner.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['execute_blueprint', 'propose_upstream']);
  });

  it('execute_blueprint names the right first calls: start, then step n = 1 with next_token', async () => {
    const text = await promptText(stranger, 'execute_blueprint', { blueprint_id: pub.slug });
    expect(text).toContain(`blueprint_execute_start {blueprint_id: "${pub.id}"}`);
    expect(text).toContain(`blueprint_execute_step {blueprint_id: "${pub.id}", n: 1, token: <next_token>}`);
    await expect(stranger.client.getPrompt({ name: 'execute_blueprint', arguments: { blueprint_id: priv.id } })).rejects.toMatchObject({ code: -32002 });
  });

  it('execute_blueprint followed to the letter walks a run to its last step (calls, first n, token field, increment, stop)', async () => {
    const text = await promptText(stranger, 'execute_blueprint', { blueprint_id: pub.slug });
    const [start] = callsIn(text, 'blueprint_execute_start');
    const [step] = callsIn(text, 'blueprint_execute_step');
    const increment = /with n \+ (\d+)/.exec(text);
    const stop = /until an answer has ([a-z_]+): true/.exec(text);
    if (!start || !step || !increment || !stop) throw new Error(`the prompt does not say how to walk a run: ${text}`);
    const tokenField = /^<([a-z_]+)>$/.exec(String(step.token))?.[1];
    if (!tokenField) throw new Error(`the prompt does not name the answer field holding the token: ${text}`);
    let answer = await stranger.ok('blueprint_execute_start', start);
    const runId = answer.run_id;
    let n = step.n as number;
    const seen: string[] = [];
    for (let calls = 0; calls < 20 && answer[stop[1]!] !== true; calls++) {
      const res = await stranger.call('blueprint_execute_step', { ...step, n, token: answer[tokenField] });
      if (res.isError) throw new Error(`following the prompt, step ${n} answered ${JSON.stringify(res.body)}`);
      answer = res.body;
      seen.push(answer.step.key);
      n += Number(increment[1]);
    }
    expect(seen).toEqual(['schema', 'endpoints', 'pages']);
    expect(await stranger.ok('execution_get', { run_id: runId })).toMatchObject({ status: 'completed', steps_reached: 3, total_steps: 3 });
  });

  it('propose_upstream names compare and proposal_open with the parent and the fork', async () => {
    const forkerToken = await server.rest.agentToken('forker');
    const mine = await fork(server.rest, forkerToken, pub.id);
    const forker = await McpTestClient.connect(server.url, forkerToken);
    const text = await promptText(forker, 'propose_upstream', { blueprint_id: mine.id });
    await forker.close();
    expect(text).toContain(`blueprint_compare {blueprint_id: "${mine.id}"}`);
    expect(text).toContain(`proposal_open {blueprint_id: "${pub.id}", source_blueprint_id: "${mine.id}"`);
  });

  it('propose_upstream followed to the letter opens a proposal of the fork to its parent with the fork’s change', async () => {
    const forkerToken = await server.rest.agentToken('literal forker');
    const mine = await fork(server.rest, forkerToken, pub.id);
    const edited = mine.steps.map((s: any, i: number) => (i === 0 ? { ...s, title: 'Schema, improved' } : s));
    const saved = await server.rest.put(`/api/blueprints/${mine.id}/plan`, {
      token: forkerToken,
      body: { modules: mine.modules, steps: edited, configuration: mine.configuration, design_system: mine.design_system, base_version: mine.version },
    });
    expect(saved.status).toBe(200);
    const forker = await McpTestClient.connect(server.url, forkerToken);
    try {
      const text = await promptText(forker, 'propose_upstream', { blueprint_id: mine.slug, title: 'Better schema, "quoted", with commas' });
      const [compare] = callsIn(text, 'blueprint_compare');
      const [open] = callsIn(text, 'proposal_open');
      if (!compare || !open) throw new Error(`the prompt names no compare or proposal_open call: ${text}`);
      expect(await forker.ok('blueprint_compare', compare)).toMatchObject({ ahead: expect.anything() });
      expect(open.body).toMatch(/^<.+>$/);
      const opened = await forker.call('proposal_open', { ...open, body: 'The schema step says more.' });
      if (opened.isError) throw new Error(`following the prompt, proposal_open answered ${JSON.stringify(opened.body)}`);
      expect(opened.body).toMatchObject({
        title: 'Better schema, "quoted", with commas',
        target: { id: pub.id },
        source: { id: mine.id },
        state: 'open',
        changes: { steps: [expect.objectContaining({ key: mine.steps[0].key })] },
      });
      const listed = await owner.ok('proposal_list', { blueprint_id: pub.id });
      expect(listed.items.map((p: any) => p.number)).toContain(opened.body.number);
    } finally {
      await forker.close();
    }
  });

  it('propose_upstream on a fork whose parent the caller may no longer read names nothing of the parent', async () => {
    const parentOwner = await server.rest.agentToken('parent owner');
    const parent = await createBlueprint(server.rest, parentOwner, { name: 'Soon hidden parent' });
    const forkerToken = await server.rest.agentToken('orphaned forker');
    const mine = await fork(server.rest, forkerToken, parent.id);
    // Renamed as it goes private: the fork's own name and slug were made from the old, public one.
    const hidden = { name: 'Nebula archive', visibility: 'private' };
    expect((await server.rest.patch(`/api/blueprints/${parent.id}`, { token: parentOwner, body: hidden })).status).toBe(200);
    const forker = await McpTestClient.connect(server.url, forkerToken);
    try {
      const text = await promptText(forker, 'propose_upstream', { blueprint_id: mine.id });
      expect(text).toContain('no parent you may read');
      for (const trace of [parent.id, hidden.name, 'proposal_open']) expect({ trace, found: text.includes(trace) }).toEqual({ trace, found: false });
    } finally {
      await forker.close();
    }
  });
});
