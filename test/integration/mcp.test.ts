import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createBlueprint } from '../fixtures/blueprints';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function bodyOf(result: unknown): any {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0]!.text);
}

describe('MCP tools at POST /mcp', () => {
  it('lists the tools, with blueprint_fork taking one field: blueprint_id', async () => {
    const client = await mcpClient(await server.rest.agentToken());
    const { tools } = await client.listTools();
    const forkTool = tools.find((t) => t.name === 'blueprint_fork');
    expect(forkTool?.inputSchema.required).toEqual(['blueprint_id']);
    expect(Object.keys(forkTool?.inputSchema.properties ?? {})).toEqual(['blueprint_id']);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['blueprint_get', 'registry_search', 'tool_operation_start', 'tool_operation_submit']));
    await client.close();
  });

  it('forks through blueprint_fork exactly as REST does: new id and slug, forked_from, owned by the caller', async () => {
    const author = await server.rest.agentToken();
    const source = await createBlueprint(server.rest, author, { name: 'Mcp Source' });
    const forker = await server.rest.agentToken('forker');
    const client = await mcpClient(forker);
    const result = await client.callTool({ name: 'blueprint_fork', arguments: { blueprint_id: source.id } });
    expect(result.isError).toBeFalsy();
    const fork = bodyOf(result);
    expect(fork.id).not.toBe(source.id);
    expect(fork.slug).not.toBe(source.slug);
    expect(fork.forked_from).toEqual({ id: source.id, slug: source.slug, name: 'Mcp Source' });
    expect(fork.modules).toEqual(source.modules);
    const viewer = await server.rest.get('/api/blueprints/' + fork.id, { token: forker });
    expect(viewer.status).toBe(200);
    const lineage = await server.rest.get(`/api/blueprints/${source.id}/lineage`, { token: forker });
    expect(lineage.body.children.map((c: any) => c.blueprint.id)).toEqual([fork.id]);
    await client.close();
  });

  it('answers a tool error in the documented error shape and writes nothing', async () => {
    const author = await server.rest.agentToken();
    const secret = await createBlueprint(server.rest, author, { name: 'Mcp Secret', visibility: 'private' });
    const client = await mcpClient(await server.rest.agentToken('stranger'));
    const result = await client.callTool({ name: 'blueprint_fork', arguments: { blueprint_id: secret.id } });
    expect(result.isError).toBe(true);
    expect(bodyOf(result)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    const lineage = await server.rest.get(`/api/blueprints/${secret.id}/lineage`, { token: author });
    expect(lineage.body.children).toEqual([]);
    await client.close();
  });

  it('drives a create operation to a blueprint', async () => {
    const client = await mcpClient(await server.rest.agentToken());
    let op = bodyOf(await client.callTool({ name: 'tool_operation_start', arguments: { tool_type: 'create', params: { description: 'a cli' } } }));
    const submissions = [
      { modules: [{ key: 'cli', name: 'CLI', kind: 'service' }] },
      { steps: [{ key: 'parse', module_key: 'cli', title: 'Parse args', instructions: 'use a parser' }] },
      { configuration: {} },
      { design_system: {} },
      { name: 'Mcp Cli', visibility: 'public' },
    ];
    for (const submission of submissions) {
      op = bodyOf(await client.callTool({ name: 'tool_operation_submit', arguments: { operation_id: op.operation_id, token: op.token, submission } }));
    }
    expect(op.done).toBe(true);
    const got = bodyOf(await client.callTool({ name: 'blueprint_get', arguments: { blueprint_id: op.result.blueprint_ids[0] } }));
    expect(got.name).toBe('Mcp Cli');
    await client.close();
  });

  it('executes a blueprint step by step until dn, as the REST execution endpoints do', async () => {
    const token = await server.rest.agentToken();
    const bp = await createBlueprint(server.rest, token, { name: 'Mcp Run' });
    const client = await mcpClient(token);
    const start = bodyOf(await client.callTool({ name: 'blueprint_execute_start', arguments: { blueprint_id: bp.id } }));
    expect(start.total_steps).toBe(bp.steps.length);
    expect(start.stage_tokens).toHaveLength(bp.steps.length);
    let next = start.next_token as string;
    let last: any;
    for (let n = 1; n <= start.total_steps; n++) {
      last = bodyOf(await client.callTool({ name: 'blueprint_execute_step', arguments: { blueprint_id: bp.id, n, token: next } }));
      expect(last.n).toBe(n);
      next = last.next_token;
    }
    expect(last.dn).toBe(true);
    const wrong = await client.callTool({ name: 'blueprint_execute_step', arguments: { blueprint_id: bp.id, n: 1, token: 'bwx_wrong' } });
    expect(wrong.isError).toBe(true);
    expect(bodyOf(wrong).error.code).toBe('STALE_STEP_TOKEN');
    const card = await server.rest.get(`/api/blueprints/${bp.id}`, { token });
    expect(card.body.success_rate).toBe(1);
    await client.close();
  });

  it('rejects calls without a bearer token with 401', async () => {
    const res = await server.rest.post('/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });
});

describe('MCP errors in the section 5 shape', () => {
  it('answers an unknown tool and bad arguments with isError results carrying the error body, and NUL with 400', async () => {
    const token = await server.rest.agentToken('mcp-errors');
    const unknown = await mcpCall(server.url, token, 'no_such_tool', {});
    expect(unknown.body.result.isError).toBe(true);
    expect(mcpResultBody(unknown)).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('no_such_tool') } });
    const badArgs = await mcpCall(server.url, token, 'blueprint_get', { blueprint_id: 42 });
    expect(badArgs.body.result.isError).toBe(true);
    expect(mcpResultBody(badArgs)).toMatchObject({
      error: { code: 'VALIDATION_FAILED', details: { issues: [{ path: 'blueprint_id', message: expect.any(String) }] } },
    });
    expect(mcpResultBody(await mcpCall(server.url, token, 'blueprint_get', {}))).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    const nul = await mcpCall(server.url, token, 'registry_search', { q: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: { issues: [{ path: 'body.params.arguments.q' }] } } });
  });
});
