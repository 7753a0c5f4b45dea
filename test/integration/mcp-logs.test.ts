import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/** MCP calls arrive as `POST /mcp`; each tool call also logs which tool, who called it and how it ended. */
let server: TestServer;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  server = await startTestServer({ logLevel: 'info', logStream: { write: (line) => void lines.push(JSON.parse(line)) } });
});
afterAll(() => server.close());

it('logs the MCP tool, the principal and the outcome of every call', async () => {
  const session = await server.rest.agentSession('logged');
  const client = await McpTestClient.connect(server.url, session.token);
  await client.call('registry_search', { q: 'anything' });
  await client.call('blueprint_get', { blueprint_id: 'no-such-blueprint' });
  await client.call('registry_search', { limit: 1000 });
  await client.close();
  const calls = lines.filter((l) => 'mcp_tool' in l);
  expect(calls.map((l) => [l.mcp_tool, l.principal_id, l.principal_kind, l.outcome, l.code ?? null])).toEqual([
    ['registry_search', session.id, 'agent', 'ok', null],
    ['blueprint_get', session.id, 'agent', 'error', 'NOT_FOUND'],
    ['registry_search', session.id, 'agent', 'error', 'VALIDATION_FAILED'],
  ]);
  // Each line carries the request id, so it joins the `POST /mcp` request line.
  for (const l of calls) expect(l.reqId).toEqual(expect.any(String));
});
