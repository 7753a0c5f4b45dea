import { createBlueprint } from '../fixtures/blueprints';
import { blogSpec, shopSpec } from '../fixtures/plans';
import { runTool, writtenRows } from '../fixtures/tools';
import { BlueprintProvenanceDocument, RegistryProvenanceDocument, ViewerDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let alice: string;
let bob: string;
let secret: any;
let open: any;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.rest.agentToken('alice');
  bob = await server.rest.agentToken('bob');
  secret = await createBlueprint(server.rest, alice, { ...shopSpec, name: 'Secret shop', visibility: 'private' });
  open = await createBlueprint(server.rest, alice, blogSpec);
});
afterAll(() => server.close());

const start = (token: string, toolType: string, sources: string[], params: Record<string, unknown> = {}) =>
  server.rest.post('/api/tools/operations', { token, body: { tool_type: toolType, source_blueprint_ids: sources, params } });

describe('sources of NEW-output tools', () => {
  it.each([
    ['breed', (ids: string[]) => ids],
    ['distill', (ids: string[]) => ids.slice(0, 1)],
    ['style_transfer', (ids: string[]) => ids],
  ])('%s answers 404 for an unknown source and for a private source of someone else, alike, and starts nothing', async (toolType, pick) => {
    const before = await writtenRows(server.databaseUrl);
    const unknown = await start(bob, toolType, pick(['6f1c7a3e-0d2b-4c5e-9a8f-123456789abc', open.id]));
    const hidden = await start(bob, toolType, pick([secret.id, open.id]));
    expect([unknown.status, hidden.status]).toEqual([404, 404]);
    expect([unknown.body.error.code, hidden.body.error.code]).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect(hidden.body.error.message).toBe(`blueprint "${secret.id}" not found`);
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });

  it('lets the owner use their private blueprint, and makes the result private by default', async () => {
    const final = await runTool(server.rest, alice, 'splice', [secret.id, open.id], [{ modules: [{ key: 'mailer' }] }, {}]);
    const bp = (await server.rest.get(`/api/blueprints/${final.result.blueprint_ids[0]}`, { token: alice })).body;
    expect(bp.visibility).toBe('private');
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: bob })).status).toBe(404);
  });

  it('gives the result to the caller, not to the owner of the sources', async () => {
    const bobId = (await server.gql.ok(ViewerDocument, {}, bob)).viewer!.id;
    const final = await runTool(server.rest, bob, 'distill', [open.id], [{ core: ['admin'] }, {}]);
    const bp = (await server.rest.get(`/api/blueprints/${final.result.blueprint_ids[0]}`, { token: bob })).body;
    expect({ owner_id: bp.owner_id, visibility: bp.visibility }).toEqual({ owner_id: bobId, visibility: 'public' });
    expect(bp.modules.map((m: any) => m.key)).toEqual(['db', 'api', 'admin']);
  });

  it('rejects a repeated source id', async () => {
    const res = await start(alice, 'weave', [open.id, open.id]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('source_blueprint_ids');
  });
});

describe('provenance in GraphQL', () => {
  it('hides a source the viewer may not read, and shows the readable one', async () => {
    const final = await runTool(
      server.rest,
      alice,
      'breed',
      [secret.id, open.id],
      [
        {
          modules: [
            { key: 'web', from: secret.id },
            { key: 'api', from: secret.id },
            { key: 'db', from: open.id },
          ],
        },
        { visibility: 'public', name: 'Public child' },
      ],
    );
    const childId = final.result.blueprint_ids[0];
    const asAlice = await server.gql.ok(BlueprintProvenanceDocument, { id: childId }, alice);
    expect(asAlice.blueprint!.provenance.map((p) => [p.moduleKey, p.sourceBlueprint?.id])).toEqual([
      ['db', open.id],
      ['api', secret.id],
      ['web', secret.id],
    ]);
    const asBob = await server.gql.ok(BlueprintProvenanceDocument, { id: childId }, bob);
    expect(asBob.blueprint!.provenance.map((p) => [p.moduleKey, p.sourceModuleKey, p.sourceBlueprint?.id ?? null])).toEqual([
      ['db', 'db', open.id],
      ['api', 'api', null],
      ['web', 'web', null],
    ]);
    expect(asBob.blueprint!.parents).toEqual([{ kind: 'BREED', blueprint: { id: open.id } }]);
  });

  it('loads the provenance of a whole page of blueprints in a constant number of statements', async () => {
    for (let i = 0; i < 3; i++) {
      await runTool(
        server.rest,
        alice,
        'weave',
        [open.id, (await createBlueprint(server.rest, alice, { ...shopSpec, name: `Shop ${i}` })).id],
        [{ dependencies: [] }, {}],
      );
    }
    const one = await server.gql.request(RegistryProvenanceDocument, { first: 1 }, bob);
    const many = await server.gql.request(RegistryProvenanceDocument, { first: 20 }, bob);
    expect(one.errors).toBeUndefined();
    const combined = many.data!.registry.edges.filter((e) => e.node.provenance.length > 0);
    expect(combined.length).toBeGreaterThanOrEqual(4);
    expect(many.sqlStatements).toBe(one.sqlStatements);
  });
});
