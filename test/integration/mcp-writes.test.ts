import { createBlueprint, createSubmissions } from '../fixtures/blueprints';
import { McpTestClient } from '../helpers/mcp-test-client';
import type { AgentSession } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Every write tool has the effect its REST route has, observed through REST reads. The last test checks
 * that every write tool in tools/list was exercised here.
 */
let server: TestServer;
let owner: AgentSession;
let other: AgentSession;
let mcpOwner: McpTestClient;
let mcpOther: McpTestClient;
const exercised = new Set<string>();

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentSession('owner');
  other = await server.rest.agentSession('other');
  mcpOwner = await McpTestClient.connect(server.url, owner.token);
  mcpOther = await McpTestClient.connect(server.url, other.token);
});
afterAll(async () => {
  await Promise.all([mcpOwner.close(), mcpOther.close()]);
  await server.close();
});

/** A successful write through MCP, recorded as exercised. */
async function write(client: McpTestClient, name: string, args: Record<string, unknown>): Promise<any> {
  exercised.add(name);
  return client.ok(name, args);
}
const get = async (path: string, token = owner.token) => {
  const res = await server.rest.get(path, { token });
  expect(res.status).toBe(200);
  return res.body;
};

describe('MCP write tools do what REST does', () => {
  it('creates a blueprint through the 5 create steps, and cancels an operation', async () => {
    let op = await write(mcpOwner, 'tool_operation_start', { tool_type: 'create', params: { description: 'made by MCP' } });
    for (const submission of createSubmissions({ name: 'Mcp Made' }))
      op = await write(mcpOwner, 'tool_operation_submit', { operation_id: op.operation_id, token: op.token, submission });
    expect(op).toMatchObject({ done: true, status: 'completed', token: null });
    expect((await get(`/api/blueprints/${op.result.blueprint_ids[0]}`)).name).toBe('Mcp Made');

    const second = await write(mcpOwner, 'tool_operation_start', { tool_type: 'create' });
    await write(mcpOwner, 'tool_operation_cancel', { operation_id: second.operation_id });
    expect((await get(`/api/tools/operations/${second.operation_id}`)).status).toBe('cancelled');
  });

  it('forks, stars and unstars', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Mcp Writable' });
    const fork = await write(mcpOther, 'blueprint_fork', { blueprint_id: bp.id });
    expect((await get(`/api/blueprints/${bp.id}/lineage`)).children.map((c: any) => c.blueprint.id)).toEqual([fork.id]);
    expect(await write(mcpOther, 'blueprint_star', { blueprint_id: bp.slug })).toEqual({ blueprint_id: bp.id, starred: true, stars: 1 });
    expect((await get(`/api/blueprints/${bp.id}`)).stars).toBe(1);
    await write(mcpOther, 'blueprint_unstar', { blueprint_id: bp.id });
    expect((await get(`/api/blueprints/${bp.id}`)).stars).toBe(0);
  });

  it('executes until dn and reports a run', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Mcp Runnable' });
    const start = await write(mcpOwner, 'blueprint_execute_start', { blueprint_id: bp.id });
    let step: any;
    for (let n = 1; n <= start.total_steps; n++)
      step = await write(mcpOwner, 'blueprint_execute_step', { blueprint_id: bp.id, n, token: n === 1 ? start.next_token : step.next_token });
    expect(step.dn).toBe(true);
    expect((await get(`/api/executions/${start.run_id}`)).status).toBe('completed');
    const second = await write(mcpOwner, 'blueprint_execute_start', { blueprint_id: bp.id });
    await write(mcpOwner, 'execution_report', { run_id: second.run_id, status: 'failed', notes: 'tests broke' });
    expect(await get(`/api/executions/${second.run_id}`)).toMatchObject({ status: 'failed', notes: 'tests broke' });
  });

  it('publishes and edits changelog entries, subscribes, broadcasts to the inbox and marks it read', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Mcp Newsworthy' });
    const entry = await write(mcpOwner, 'changelog_publish', { blueprint_id: bp.id, title: 'First', body: 'hello' });
    await write(mcpOwner, 'changelog_update', { blueprint_id: bp.id, entry_id: entry.id, title: 'First, edited' });
    expect((await get(`/api/blueprints/${bp.id}/changelog`)).items).toEqual([expect.objectContaining({ id: entry.id, title: 'First, edited', body: 'hello' })]);

    expect(await write(mcpOther, 'broadcast_subscribe', { blueprint_id: bp.id })).toEqual({ blueprint_id: bp.id, subscribed: true });
    const sent = await write(mcpOwner, 'broadcast_send', { blueprint_id: bp.id, message: 'v2 is out', type: 'changelog', severity: 'minor' });
    expect(sent.recipient_count).toBe(1);
    const inbox = await get('/api/inbox', other.token);
    expect(inbox.items.map((i: any) => i.broadcast.id)).toEqual([sent.id]);
    await write(mcpOther, 'inbox_mark_read', { delivery_id: inbox.items[0].id });
    expect((await get('/api/inbox?unread=true', other.token)).total).toBe(0);

    await write(mcpOther, 'broadcast_unsubscribe', { blueprint_id: bp.id });
    await write(mcpOwner, 'broadcast_send', { blueprint_id: bp.id, message: 'v3 is out', type: 'notice', severity: 'info' });
    expect((await get('/api/inbox', other.token)).total).toBe(1);
  });

  it('builds, lays out, transfers and prunes an architecture', async () => {
    const [a, b] = [
      await createBlueprint(server.rest, owner.token, { name: 'Mcp Node A' }),
      await createBlueprint(server.rest, owner.token, { name: 'Mcp Node B' }),
    ];
    const arch = await write(mcpOwner, 'architecture_create', { name: 'Mcp Diagram', visibility: 'public' });
    const na = await write(mcpOwner, 'architecture_add_node', { slug: arch.slug, blueprint_id: a.id });
    const nb = await write(mcpOwner, 'architecture_add_node', { slug: arch.slug, blueprint_id: b.id, position_x: 10, position_y: 20 });
    const edge = await write(mcpOwner, 'architecture_add_edge', {
      slug: arch.slug,
      source_node_id: na.id,
      target_node_id: nb.id,
      edge_type: 'api_call',
      label: 'calls',
    });
    await write(mcpOwner, 'architecture_update_layout', { slug: arch.slug, positions: [{ nodeId: na.id, position: { x: 300, y: 400 } }] });
    let view = await get(`/api/architectures/${arch.slug}`);
    expect(view.nodes.find((n: any) => n.id === na.id)).toMatchObject({ position_x: 300, position_y: 400 });
    expect(view.edges.map((e: any) => e.id)).toEqual([edge.id]);

    const team = await write(mcpOwner, 'team_create', { name: 'Mcp Owners' });
    await write(mcpOwner, 'architecture_transfer', { slug: arch.slug, team_id: team.id });
    expect((await get(`/api/architectures/${arch.slug}`)).team_id).toBe(team.id);

    await write(mcpOwner, 'architecture_remove_edge', { slug: arch.slug, edge_id: edge.id });
    await write(mcpOwner, 'architecture_remove_node', { slug: arch.slug, node_id: nb.id });
    view = await get(`/api/architectures/${arch.slug}`);
    expect(view.nodes.map((n: any) => n.id)).toEqual([na.id]);
    expect(view.edges).toEqual([]);
  });

  it('manages a team', async () => {
    const team = await write(mcpOwner, 'team_create', { name: 'Mcp Crew' });
    await write(mcpOwner, 'team_add_member', { team_id: team.id, principal_id: other.id, role: 'viewer' });
    await write(mcpOwner, 'team_update_member', { team_id: team.id, principal_id: other.id, role: 'admin' });
    expect((await get(`/api/teams/${team.id}`)).members).toEqual(expect.arrayContaining([expect.objectContaining({ principal_id: other.id, role: 'admin' })]));
    await write(mcpOwner, 'team_remove_member', { team_id: team.id, principal_id: other.id });
    expect((await get(`/api/teams/${team.id}`)).members.map((m: any) => m.principal_id)).toEqual([owner.id]);
  });

  it('edits and deletes blueprints and architectures, reviews, and transfers into and out of a team', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Mcp Editable' });
    const edited = await write(mcpOwner, 'blueprint_update', { blueprint_id: bp.id, name: 'Mcp Edited', tags: ['edited'] });
    expect(await get(`/api/blueprints/${bp.id}`)).toEqual(edited);
    expect(edited).toMatchObject({ name: 'Mcp Edited', tags: ['edited'], slug: bp.slug });

    const review = await write(mcpOther, 'review_create', { blueprint_id: bp.id, rating: 5, body: 'great' });
    await write(mcpOther, 'review_update', { blueprint_id: bp.id, rating: 3 });
    expect((await get(`/api/blueprints/${bp.id}/reviews`)).items).toEqual([expect.objectContaining({ id: review.id, rating: 3, body: 'great' })]);
    expect((await get(`/api/blueprints/${bp.id}`)).rating_average).toBe(3);
    await write(mcpOther, 'review_delete', { blueprint_id: bp.id });
    expect((await get(`/api/blueprints/${bp.id}/reviews`)).total).toBe(0);

    const team = await write(mcpOwner, 'team_create', { name: 'Mcp Movers' });
    await write(mcpOwner, 'team_update', { team_id: team.id, conventions: 'tabs, not spaces' });
    expect((await get(`/api/teams/${team.id}`)).conventions).toBe('tabs, not spaces');
    await write(mcpOwner, 'blueprint_transfer', { blueprint_id: bp.id, team_id: team.id });
    expect((await get(`/api/blueprints/${bp.id}`)).team_id).toBe(team.id);
    const refused = await mcpOwner.call('team_delete', { team_id: team.id });
    expect(refused.body.error.code).toBe('CONFLICT');
    await write(mcpOwner, 'blueprint_transfer', { blueprint_id: bp.id, team_id: null });
    await write(mcpOwner, 'team_delete', { team_id: team.id });
    expect((await server.rest.get(`/api/teams/${team.id}`, { token: owner.token })).status).toBe(404);

    await write(mcpOwner, 'blueprint_delete', { blueprint_id: bp.slug });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner.token })).status).toBe(404);

    const arch = await write(mcpOwner, 'architecture_create', { name: 'Mcp Temporary', visibility: 'private' });
    await write(mcpOwner, 'architecture_update', { slug: arch.slug, visibility: 'public', description: 'now public' });
    expect(await get(`/api/architectures/${arch.slug}`, other.token)).toMatchObject({ visibility: 'public', description: 'now public' });
    await write(mcpOwner, 'architecture_delete', { slug: arch.slug });
    expect((await server.rest.get(`/api/architectures/${arch.slug}`, { token: owner.token })).status).toBe(404);
  });

  it('edits a plan, takes a proposal from open to merged, and imports exported files', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Mcp Upstream' });
    const current = await get(`/api/blueprints/${bp.id}`);
    const steps = current.steps.map((step: any, n: number) => (n === 0 ? { ...step, acceptance: [...step.acceptance, 'edited over MCP'] } : step));
    const edited = await write(mcpOwner, 'blueprint_plan_update', {
      blueprint_id: bp.id,
      modules: current.modules,
      steps,
      configuration: current.configuration,
      design_system: current.design_system,
      base_version: current.version,
    });
    expect(edited.version).toBe(current.version + 1);
    expect((await get(`/api/blueprints/${bp.id}`)).steps[0].acceptance).toContain('edited over MCP');

    const fork = await write(mcpOther, 'blueprint_fork', { blueprint_id: bp.id });
    const forkBody = await get(`/api/blueprints/${fork.id}`, other.token);
    const forkSteps = forkBody.steps.map((step: any, n: number) => (n === 1 ? { ...step, title: 'Retitled in the fork' } : step));
    await write(mcpOther, 'blueprint_plan_update', {
      blueprint_id: fork.id,
      modules: forkBody.modules,
      steps: forkSteps,
      configuration: forkBody.configuration,
      design_system: forkBody.design_system,
      base_version: forkBody.version,
    });
    const proposal = await write(mcpOther, 'proposal_open', { blueprint_id: bp.id, source_blueprint_id: fork.id, title: 'A better title' });
    await write(mcpOwner, 'proposal_comment', { blueprint_id: bp.id, number: proposal.number, body: 'thanks' });
    await write(mcpOther, 'proposal_close', { blueprint_id: bp.id, number: proposal.number });
    expect((await get(`/api/blueprints/${bp.id}/proposals/${proposal.number}`)).state).toBe('closed');
    await write(mcpOther, 'proposal_reopen', { blueprint_id: bp.id, number: proposal.number });
    const merged = await write(mcpOwner, 'proposal_merge', { blueprint_id: bp.id, number: proposal.number });
    expect(merged.state).toBe('merged');
    expect((await get(`/api/blueprints/${bp.id}`)).steps[1].title).toBe('Retitled in the fork');

    const exported = await get(`/api/blueprints/${bp.id}/export?format=agents-md`, other.token);
    const imported = await write(mcpOther, 'blueprint_import', { format: 'agents-md', files: exported.files, name: 'Mcp Imported' });
    const body = await get(`/api/blueprints/${imported.id}`, other.token);
    expect(body).toMatchObject({ name: 'Mcp Imported', forked_from: { id: bp.id } });
    expect(body.steps).toEqual((await get(`/api/blueprints/${bp.id}`)).steps);
  });

  it("claims an agent session's work for a signed-in person", async () => {
    const person = await server.rest.signUp();
    const agent = await server.rest.agentSession('claimed');
    const bp = await createBlueprint(server.rest, agent.token, { name: 'Mcp Claimed' });
    const personal = await McpTestClient.connect(server.url, await server.rest.accountToken(person.token, 'write'));
    const claimed = await write(personal, 'account_claim', { agent_token: agent.token });
    expect(claimed).toMatchObject({ agent_session_id: agent.id, claimed: { blueprints: 1 } });
    expect((await get(`/api/blueprints/${bp.id}`, person.token)).owner_id).toBe(person.id);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: agent.token })).status).toBe(401);
    await personal.close();
  });

  it('exercised every write tool in tools/list', async () => {
    const { tools } = await mcpOwner.client.listTools();
    expect([...exercised].sort()).toEqual(
      tools
        .filter((t) => !t.annotations?.readOnlyHint)
        .map((t) => t.name)
        .sort(),
    );
  });
});
