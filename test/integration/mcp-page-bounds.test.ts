import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

// PAGE_MAX set above the default: MCP advertises and accepts the same page sizes as REST. The message and
// title bounds set below theirs: MCP advertises and applies the bounds the services check.
const pageMax = 150;
const broadcastMessageMax = 300;
const changelogTitleMax = 40;
const changelogBodyMax = 2_000;

let server: TestServer;
let client: McpTestClient;
let tools: Tool[];
beforeAll(async () => {
  server = await startTestServer({ limits: { pageMax, broadcastMessageMax, changelogTitleMax, changelogBodyMax } });
  client = await McpTestClient.connect(server.url, await server.rest.agentToken());
  tools = (await client.client.listTools()).tools;
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('MCP page bounds follow the configured PAGE_MAX', () => {
  it('lists every page size with the configured maximum', () => {
    // Breed suggestions take a count of their own (at most BREED_SUGGESTIONS_MAX), not a page.
    const paged = tools.filter((t) => (t.inputSchema.properties as Record<string, unknown> | undefined)?.limit && t.name !== 'blueprint_breed_suggestions');
    expect(paged.length).toBeGreaterThan(10);
    for (const t of paged)
      expect({ tool: t.name, limit: (t.inputSchema.properties as Record<string, unknown>).limit }).toEqual({
        tool: t.name,
        limit: { type: 'integer', minimum: 1, maximum: pageMax, default: 20, description: `Page size, 1-${pageMax}.` },
      });
  });

  it('accepts a page REST accepts, and refuses the one above it at `limit` as REST does', async () => {
    const token = await server.rest.agentToken();
    const rest = await server.rest.get(`/api/registry?limit=${pageMax}`, { token });
    expect(rest.status).toBe(200);
    const ok = await client.call('registry_search', { limit: pageMax });
    expect(ok.isError).toBe(false);
    expect(ok.body.limit).toBe(pageMax);

    expect((await server.rest.get(`/api/registry?limit=${pageMax + 1}`, { token })).status).toBe(400);
    const over = await client.call('registry_search', { limit: pageMax + 1 });
    expect(over.isError).toBe(true);
    expect(over.body.error.code).toBe('VALIDATION_FAILED');
    expect(over.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['limit']);
  });
});

describe('MCP size bounds follow the configured limits', () => {
  const props = (name: string) => tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { maxLength?: number }>;

  it('lists the configured message, title and body bounds', () => {
    expect(props('broadcast_send').message!.maxLength).toBe(broadcastMessageMax);
    for (const name of ['changelog_publish', 'changelog_update']) {
      expect({ name, title: props(name).title!.maxLength, body: props(name).body!.maxLength }).toEqual({
        name,
        title: changelogTitleMax,
        body: changelogBodyMax,
      });
    }
  });

  it('refuses a message above the configured bound at `message`, before the tool runs', async () => {
    const over = await client.call('broadcast_send', {
      blueprint_id: 'no-such-blueprint',
      message: 'x'.repeat(broadcastMessageMax + 1),
      type: 'notice',
      severity: 'info',
    });
    expect(over.isError).toBe(true);
    expect(over.body.error.code).toBe('VALIDATION_FAILED');
    expect(over.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['message']);
  });
});
