import { randomUUID } from 'node:crypto';
import { mcpClient, toolBody } from '../helpers/mcp-client';
import { callers, matrix, PRIVATE, type Caller } from './authorization/matrix';
import { authCode, codeFor, matrixWorld } from './authorization/world';

// The MCP cells of the authorization matrix (the table: authorization/matrix.ts).
const world = matrixWorld();

describe('MCP: every tool has a row', () => {
  it('the tools the server lists are exactly the rows', async () => {
    const { w, tokens } = world;
    const client = await mcpClient(w.server.url, tokens.owner!);
    const names = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    expect(names.filter((n) => !(n in matrix.mcp)).sort()).toEqual([]);
    expect(
      Object.keys(matrix.mcp)
        .filter((n) => !names.includes(n))
        .sort(),
    ).toEqual([]);
  });
});

function sampleJson(name: string, schema: Record<string, any>): unknown {
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      if (name.endsWith('_id') || name === 'token') return randomUUID();
      // A made-up name, so that a create (architecture_create) never makes the 'no-such-thing' a later row looks up.
      return name === 'name' ? `matrix ${randomUUID()}` : 'no-such-thing';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return {};
  }
}

describe('MCP tools', () => {
  it.each(Object.keys(matrix.mcp))('%s', async (name) => {
    const { w, tokens } = world;
    const owner = await mcpClient(w.server.url, tokens.owner!);
    const tool = (await owner.listTools()).tools.find((t) => t.name === name)!;
    await owner.close();
    const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const args = Object.fromEntries((tool.inputSchema.required ?? []).map((p) => [p, sampleJson(p, props[p] ?? {})]));
    const actual = {} as Record<Caller, string>;
    const wanted = {} as Record<Caller, string>;
    for (const c of callers) {
      wanted[c] = codeFor(matrix.mcp[name]![c]);
      if (c === 'anonymous') {
        const res = await w.server.rest.post('/mcp', {
          headers: { accept: 'application/json, text/event-stream' },
          body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        });
        actual[c] = res.status === 401 ? 'UNAUTHENTICATED' : 'allowed';
        continue;
      }
      const client = await mcpClient(w.server.url, tokens[c]!);
      const result = await client.callTool({ name, arguments: args });
      await client.close();
      actual[c] = result.isError ? authCode([{ extensions: { code: toolBody(result).error?.code } }]) : 'allowed';
    }
    expect(actual).toEqual(wanted);
  });

  it('hides private blueprints from those who may not see them (NOT_FOUND)', async () => {
    const { w, tokens } = world;
    for (const c of callers.filter((x) => x !== 'anonymous')) {
      const client = await mcpClient(w.server.url, tokens[c]!);
      const result = await client.callTool({ name: 'blueprint_get', arguments: { blueprint_id: w.priv.id } });
      await client.close();
      if (PRIVATE[c] === 404) expect(toolBody(result).error.code).toBe('NOT_FOUND');
      else expect(result.isError).toBeFalsy();
    }
  });
});

describe('MCP resources and prompts follow the same rule as blueprint_get', () => {
  const uri = (id: string) => `blueprint://${id}/AGENTS.md`;
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e) => (e.code === -32002 ? 'not found' : `other: ${e.code} ${e.message}`),
    );

  it.each([
    ['resources/read', (id: string) => ({ uri: uri(id) })],
    ['resources/list', () => ({})],
    ['resources/templates/list', () => ({})],
    ['prompts/list', () => ({})],
    ['prompts/get', (id: string) => ({ name: 'execute_blueprint', arguments: { blueprint_id: id } })],
  ])('without a token, %s is 401', async (method, params) => {
    const { w } = world;
    const res = await w.server.rest.post('/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method, params: params(w.pub.id) },
    });
    expect(res.status).toBe(401);
  });

  it("a private blueprint is listed, read and prompted for exactly those who may read it, and is 'not found' to the others", async () => {
    const { w, tokens } = world;
    const actual = {} as Record<string, unknown>;
    const wanted = {} as Record<string, unknown>;
    for (const c of callers.filter((x) => x !== 'anonymous')) {
      const ok = PRIVATE[c] === 'ok';
      wanted[c] = { listed: ok, read: ok ? 'ok' : 'not found', prompt: ok ? 'ok' : 'not found', publicRead: 'ok' };
      const client = await mcpClient(w.server.url, tokens[c]!);
      try {
        actual[c] = {
          listed: (await client.listResources()).resources.some((r) => r.uri === uri(w.priv.id)),
          read: await outcome(client.readResource({ uri: uri(w.priv.id) })),
          prompt: await outcome(client.getPrompt({ name: 'execute_blueprint', arguments: { blueprint_id: w.priv.id } })),
          publicRead: await outcome(client.readResource({ uri: uri(w.pub.slug) })),
        };
      } finally {
        await client.close();
      }
    }
    expect(actual).toEqual(wanted);
  });
});
