import fc from 'fast-check';
import { moduleToWire, stepToWire, type Plan } from '../../src/plans/plan';
import { createBlueprint } from '../fixtures/blueprints';
import { BlueprintExportDocument, ImportBlueprintDocument } from '../generated/graphql';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { arbServicePlan } from '../unit/transfer/transfer-arbitraries';

/**
 * The export/import round trip as a property over random plans with hostile text, through each surface
 * (REST, GraphQL, MCP) and each format: whatever plan the service accepts comes back from its own files
 * with the same modules, steps, configuration and design system. The pure render/parse property runs far
 * more cases in test/unit/transfer; this one shows the surfaces (JSON bodies, GraphQL strings, MCP
 * arguments, the plan checks on import) lose nothing on the way.
 */
let server: TestServer;
let alice: string;
let mcp: McpTestClient;
beforeAll(async () => {
  server = await startTestServer();
  alice = await server.rest.agentToken('alice');
  mcp = await McpTestClient.connect(server.url, alice);
});
afterAll(async () => {
  await mcp.close();
  await server.close();
});

const formats = ['agents-md', 'claude-md', 'cursor-rules', 'json'] as const;
const gqlFormat = (f: string) => f.toUpperCase().replace('-', '_') as any;
const planOf = (b: any) => ({ modules: b.modules, steps: b.steps, configuration: b.configuration, design_system: b.design_system });
const wirePlan = (p: Plan) => ({
  modules: p.modules.map(moduleToWire),
  steps: p.steps.map(stepToWire),
  configuration: p.configuration,
  design_system: p.designSystem,
});

async function exportVia(surface: string, id: string, format: string): Promise<any[]> {
  if (surface === 'rest') return (await server.rest.get(`/api/blueprints/${id}/export?format=${format}`, { token: alice })).body.files;
  if (surface === 'graphql') return (await server.gql.ok(BlueprintExportDocument, { id, format: gqlFormat(format) }, alice)).blueprint!.export.files;
  return (await mcp.ok('blueprint_export', { blueprint_id: id, format })).files;
}

async function importVia(surface: string, format: string, files: any[]): Promise<string> {
  if (surface === 'rest') {
    const res = await server.rest.post('/api/blueprints/import', { token: alice, body: { format, files } });
    if (res.status !== 201) throw new Error(`import: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }
  if (surface === 'graphql')
    return (await server.gql.ok(ImportBlueprintDocument, { input: { format: gqlFormat(format), files } as any }, alice)).importBlueprint.id;
  return (await mcp.ok('blueprint_import', { format, files })).id;
}

describe('the round trip over random plans', () => {
  const cases = ['rest', 'graphql', 'mcp'].flatMap((surface) => formats.map((format) => [surface, format] as const));
  it.each(cases)('over %s in %s', async (surface, format) => {
    const source = await createBlueprint(server.rest, alice, { name: `Random ${surface} ${format}`, visibility: 'private' });
    let version: number = source.version;
    await fc.assert(
      fc.asyncProperty(arbServicePlan, async (plan) => {
        const saved = await server.rest.put(`/api/blueprints/${source.id}/plan`, { token: alice, body: { ...wirePlan(plan), base_version: version } });
        if (saved.status !== 200) throw new Error(`the service refused a generated plan: ${JSON.stringify(saved.body)}`);
        version = saved.body.version;
        const back = (
          await server.rest.get(`/api/blueprints/${await importVia(surface, format, await exportVia(surface, source.id, format))}`, { token: alice })
        ).body;
        expect(planOf(back)).toEqual(planOf(saved.body));
      }),
      { numRuns: 4 },
    );
  });
});
