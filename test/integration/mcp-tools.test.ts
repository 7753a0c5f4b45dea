import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { renderToolTable, DOCS_END, DOCS_START } from '../../src/mcp/mcp-docs';
import { mcpTools } from '../../src/modules';
import { toolTypes } from '../../src/operations/tool-types';
import { defaultLimits } from '../../src/platform/config';
import { validatorFor } from '../../src/platform/json-schema';
import { toolInput } from '../../src/platform/mcp-tool';
import { createArchitecture } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let client: McpTestClient;
let tools: Tool[];
beforeAll(async () => {
  server = await startTestServer();
  client = await McpTestClient.connect(server.url, await server.rest.agentToken());
  tools = (await client.client.listTools()).tools;
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const tool = (name: string) => tools.find((t) => t.name === name)!;
type Prop = { type?: string | string[]; minimum?: number; maximum?: number; enum?: unknown[]; items?: Prop; properties?: Record<string, Prop> };

/** Every property schema in an input schema, nested ones included. */
function propsOf(schema: { properties?: Record<string, Prop> }, prefix = ''): Array<[string, Prop]> {
  return Object.entries(schema.properties ?? {}).flatMap(([name, p]) => [
    [prefix + name, p] as [string, Prop],
    ...propsOf(p, `${prefix}${name}.`),
    ...(p.items ? propsOf(p.items, `${prefix}${name}[].`) : []),
  ]);
}

describe('tools/list', () => {
  it('lists every tool as <area>_<verb> with an exact input schema, an output schema and annotations', () => {
    expect(tools.length).toBeGreaterThanOrEqual(43);
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-z]+(_[a-z]+)+$/);
      expect(t.description!.length).toBeGreaterThan(20);
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.outputSchema).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect(t.annotations).toEqual({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: false,
      });
      if (t.annotations!.readOnlyHint) expect(t.annotations!.destructiveHint).toBe(false);
      for (const [name, p] of propsOf(t.inputSchema as never)) {
        // No integer without real bounds (the issue: ±9007199254740991 was advertised).
        if (p.type === 'integer')
          expect({ name, minimum: p.minimum, maximum: p.maximum }).toEqual({ name, minimum: expect.any(Number), maximum: expect.any(Number) });
        if (p.type === 'integer') expect(p.maximum!).toBeLessThanOrEqual(1_000_000_000);
      }
    }
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("compiles every input schema with the server's Ajv (strict mode), as the first call would", () => {
    for (const t of mcpTools) expect(() => validatorFor(toolInput(t.input, defaultLimits))).not.toThrow();
  });

  it('keeps blueprint_fork {blueprint_id} exactly as the spec shows', () => {
    expect(tool('blueprint_fork').inputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['blueprint_id'],
      properties: { blueprint_id: expect.objectContaining({ type: 'string' }) },
    });
  });

  it('advertises the 25 tool types, page sizes 1-100, the registry sort orders and true annotations', () => {
    expect(tool('tool_operation_start').inputSchema.properties!.tool_type).toMatchObject({ enum: [...toolTypes] });
    expect(toolTypes).toHaveLength(25);
    for (const t of tools.filter((x) => x.inputSchema.properties?.limit && x.name !== 'blueprint_breed_suggestions'))
      expect(t.inputSchema.properties!.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(tool('registry_search').inputSchema.properties!.sort).toMatchObject({ enum: ['relevance', 'stars', 'recent', 'trending', 'rating'] });
    expect(tool('blueprint_get').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool('blueprint_fork').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tool('architecture_remove_node').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('covers every REST capability: architectures, versions, changelog, broadcasts, inbox, subscriptions, stars, compare, teams, execution history, reviews, lifecycle', () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        ...['create', 'list', 'get', 'export', 'add_node', 'add_edge', 'update_layout', 'transfer', 'remove_node', 'remove_edge'].map(
          (v) => `architecture_${v}`,
        ),
        'version_list',
        'changelog_list',
        'changelog_publish',
        'changelog_update',
        'broadcast_send',
        'broadcast_subscribe',
        'broadcast_unsubscribe',
        'inbox_list',
        'inbox_mark_read',
        'blueprint_star',
        'blueprint_unstar',
        'blueprint_compare',
        'team_create',
        'team_get',
        'team_add_member',
        'team_update_member',
        'team_remove_member',
        'execution_history',
        'execution_get',
        // The people and teams issues: reviews, lifecycle, teams complete, the account's claim.
        'review_list',
        'review_create',
        'review_update',
        'review_delete',
        'blueprint_update',
        'blueprint_delete',
        'architecture_update',
        'architecture_delete',
        'team_list',
        'team_update',
        'team_delete',
        'team_blueprints',
        'team_architectures',
        'team_audit',
        'team_analytics',
        'blueprint_transfer',
        'account_claim',
      ]),
    );
  });

  it('is the table in docs/mcp-tools.md (npm run docs:mcp)', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'mcp-tools.md'), 'utf8');
    const section = readme.slice(readme.indexOf(DOCS_START), readme.indexOf(DOCS_END) + DOCS_END.length);
    expect(section).toBe(renderToolTable(tools));
  });

  it('offers no tool that mints or manages account tokens (a token cannot mint tokens)', () => {
    expect(tools.map((t) => t.name).filter((n) => /token/.test(n))).toEqual([]);
  });

  it('sends instructions that teach sessions, the 5-step create, forking and executing until dn', () => {
    const instructions = client.client.getInstructions() ?? '';
    for (const phrase of ['/api/agent/sessions', 'tool_operation_start', 'step 5', 'blueprint_fork', 'blueprint_execute_step', 'dn is true'])
      expect(instructions).toContain(phrase);
  });
});

describe('bad arguments', () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ['a page size over 100', 'registry_search', { limit: 500 }, 'limit'],
    ['a page size of 0', 'blueprint_forks', { blueprint_id: 'x', limit: 0 }, 'limit'],
    ['an unknown tool_type', 'tool_operation_start', { tool_type: 'nope' }, 'tool_type'],
    ['an unknown sort', 'registry_search', { sort: 'random' }, 'sort'],
    ['a missing required argument', 'blueprint_get', {}, 'blueprint_id'],
    ['an unknown argument', 'blueprint_get', { blueprint_id: 'x', extra: 1 }, 'extra'],
    ['a string where an integer goes', 'blueprint_execute_step', { blueprint_id: 'x', n: 'one', token: 't' }, 'n'],
    ['an empty id', 'blueprint_fork', { blueprint_id: '' }, 'blueprint_id'],
    ['a bad enum in a body', 'broadcast_send', { blueprint_id: 'x', message: 'm', type: 'gossip', severity: 'info' }, 'type'],
  ];

  it.each(cases)('%s is an isError VALIDATION_FAILED naming the argument', async (_what, name, args, path) => {
    const answer = await client.call(name, args);
    expect(answer.isError).toBe(true);
    expect(answer.body).toEqual({
      error: { code: 'VALIDATION_FAILED', message: expect.any(String), details: { issues: expect.arrayContaining([expect.objectContaining({ path })]) } },
    });
  });

  it('answers an unknown tool with isError NOT_FOUND', async () => {
    const answer = await client.call('blueprint_explode', {});
    expect(answer).toMatchObject({ isError: true, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('writes nothing when a write tool is refused', async () => {
    const token = await server.rest.agentToken();
    const own = await McpTestClient.connect(server.url, token);
    const arch = await createArchitecture(server.rest, token);
    const bp = await createBlueprint(server.rest, token);
    const answer = await own.call('architecture_add_node', { slug: arch.slug, blueprint_id: bp.id, position_x: 1e12 });
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    const after = await server.rest.get(`/api/architectures/${arch.slug}`, { token });
    expect(after.body.nodes).toEqual([]);
    await own.close();
  });
});
