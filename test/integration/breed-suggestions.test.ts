import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let token: string;
let base: any;
let fits: any;
let copy: any;
let secret: any;
beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken('breeder');
  const other = await server.rest.agentToken('other');
  const shop = [
    { key: 'db', kind: 'data' },
    { key: 'api', kind: 'backend', depends_on: ['db'] },
  ];
  const steps = [{ key: 'schema', module_key: 'db' }];
  base = await createBlueprint(server.rest, token, { name: 'Base shop', modules: shop, steps });
  fits = await createBlueprint(server.rest, other, {
    name: 'Shop with storefront',
    modules: [...shop, { key: 'web', kind: 'frontend', depends_on: ['api'] }],
    steps,
  });
  copy = await createBlueprint(server.rest, other, { name: 'Same shop', modules: shop, steps });
  secret = await createBlueprint(server.rest, other, {
    name: 'Private shop',
    visibility: 'private',
    modules: [...shop, { key: 'mail', kind: 'service' }],
    steps,
  });
  await createBlueprint(server.rest, other, { name: 'Unrelated cli', modules: [{ key: 'cli', kind: 'tool' }], steps: [{ key: 'args', module_key: 'cli' }] });
});
afterAll(() => server.close());

describe('GET /api/blueprints/:id/breed-suggestions', () => {
  it('suggests readable blueprints that fit and bring new modules, and not copies, strangers or itself', async () => {
    const res = await server.rest.get(`/api/blueprints/${base.id}/breed-suggestions`, { token });
    expect(res.status).toBe(200);
    expect(res.body.blueprint_id).toBe(base.id);
    expect(res.body.items.map((i: any) => i.blueprint.id)).toEqual([fits.id]);
    expect(res.body.items[0]).toEqual({
      blueprint: expect.objectContaining({ id: fits.id, name: 'Shop with storefront', module_count: 3, success_rate: null }),
      score: expect.any(Number),
      shared_modules: ['api', 'db'],
      new_modules: ['web'],
    });
    expect(res.body.items.map((i: any) => i.blueprint.id)).not.toContain(copy.id);
    expect(res.body.items.map((i: any) => i.blueprint.id)).not.toContain(secret.id);
  });

  it('answers GraphQL Blueprint.breedSuggestions the same way', async () => {
    const data = await server.gql.ok<any, any>(
      `query($id: ID!) { blueprint(id: $id) { breedSuggestions(limit: 5) { score newModules blueprint { id } } } }`,
      { id: base.id },
      token,
    );
    expect(data.blueprint.breedSuggestions).toEqual([{ score: expect.any(Number), newModules: ['web'], blueprint: { id: fits.id } }]);
  });

  it('requires a bearer token, hides private blueprints of others, and bounds limit', async () => {
    expect((await server.rest.get(`/api/blueprints/${base.id}/breed-suggestions`)).status).toBe(401);
    const hidden = await server.rest.get(`/api/blueprints/${secret.id}/breed-suggestions`, { token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    const big = await server.rest.get(`/api/blueprints/${base.id}/breed-suggestions?limit=51`, { token });
    expect(big.status).toBe(400);
    expect(big.body.error.code).toBe('VALIDATION_FAILED');
  });
});
