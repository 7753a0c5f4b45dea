import { mutatePlan } from '../../src/plans/algebra';
import { moduleFromWire, moduleToWire, stepFromWire, stepToWire } from '../../src/plans/plan';
import { createBlueprint } from '../fixtures/blueprints';
import { blogSpec, shopSpec } from '../fixtures/plans';
import { expectRejected, planOf, runTool, startTool, submit, writtenRows } from '../fixtures/tools';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let token: string;
let shop: any;
let blog: any;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken();
  shop = await createBlueprint(server.rest, token, shopSpec);
  blog = await createBlueprint(server.rest, token, blogSpec);
});
afterAll(() => server.close());

async function resultBlueprint(final: any): Promise<any> {
  expect(final.done).toBe(true);
  return (await server.rest.get(`/api/blueprints/${final.result.blueprint_ids[0]}`, { token })).body;
}

describe('subtract', () => {
  it('computes the modules of A that B lacks, with their steps, in one confirming step', async () => {
    const started = await startTool(server.rest, token, 'subtract', [blog.id, shop.id]);
    expect(started.total_steps).toBe(1);
    expect(started.prompt).toContain('removed 2: db, api');
    const final = await runTool(server.rest, token, 'subtract', [blog.id, shop.id], [{ name: 'Blog extras', visibility: 'private' }]);
    expect(final.result).toMatchObject({ modules_removed: ['db', 'api'] });
    const bp = await resultBlueprint(final);
    expect({ name: bp.name, visibility: bp.visibility, forked_from: bp.forked_from }).toEqual({
      name: 'Blog extras',
      visibility: 'private',
      forked_from: null,
    });
    expect(planOf(bp)).toEqual({
      modules: [
        { key: 'admin', name: 'Admin', kind: 'frontend', summary: 'Editor UI', depends_on: [] },
        { key: 'mailer', name: 'Mailer', kind: 'service', summary: 'Newsletters', depends_on: [] },
      ],
      steps: [
        { key: 'editor', module_key: 'admin', title: 'Editor', instructions: 'Markdown editor', acceptance: ['saves drafts'] },
        { key: 'send', module_key: 'mailer', title: 'Send', instructions: 'Weekly digest', acceptance: ['mail arrives'] },
      ],
      configuration: { runtime: 'node', database: 'postgres' },
      design_system: { colors: { primary: '#ff0000' }, font: 'Inter' },
    });
  });

  it('takes defaults for a confirmation of {}', async () => {
    const bp = await resultBlueprint(await runTool(server.rest, token, 'subtract', [shop.id, blog.id], [{}]));
    expect({ name: bp.name, tags: bp.tags, visibility: bp.visibility }).toEqual({
      name: 'Shop without Blog',
      tags: ['e-commerce', 'cms'],
      visibility: 'public',
    });
    expect(bp.modules.map((m: any) => m.key)).toEqual(['web']);
  });

  it('refuses to start when nothing would be left, and writes nothing', async () => {
    const before = await writtenRows(server.databaseUrl);
    const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'subtract', source_blueprint_ids: [shop.id, shop.id] } });
    expect(res.status).toBe(400);
    const copy = await createBlueprint(server.rest, token, { ...shopSpec, name: 'Shop copy' });
    const after = await writtenRows(server.databaseUrl);
    const empty = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'subtract', source_blueprint_ids: [shop.id, copy.id] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.issues[0].path).toBe('source_blueprint_ids');
    expect(await writtenRows(server.databaseUrl)).toEqual(after);
    expect(after.blueprints).toBe(before.blueprints + 1);
  });

  it('rejects one source with 400 naming source_blueprint_ids', async () => {
    const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'subtract', source_blueprint_ids: [shop.id] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('subtract takes exactly 2 source blueprint(s); got 1');
  });
});

describe('intersect', () => {
  it('computes the modules and steps common to all sources, and the JSON values they agree on', async () => {
    const final = await runTool(server.rest, token, 'intersect', [shop.id, blog.id], [{ name: 'Shared core' }]);
    expect(final.result.common_modules).toEqual(['db', 'api']);
    const bp = await resultBlueprint(final);
    expect(planOf(bp)).toEqual({
      modules: [
        { key: 'db', name: 'Database', kind: 'data', summary: 'Orders and products', depends_on: [] },
        { key: 'api', name: 'API', kind: 'backend', summary: 'REST API', depends_on: ['db'] },
      ],
      steps: [{ key: 'schema', module_key: 'db', title: 'Schema', instructions: 'Tables for orders', acceptance: ['migrations apply'] }],
      configuration: { runtime: 'node' },
      design_system: {},
    });
  });

  it('records a breed link from every source', async () => {
    const final = await runTool(server.rest, token, 'intersect', [shop.id, blog.id], [{}]);
    const lineage = await server.rest.get(`/api/blueprints/${final.result.blueprint_ids[0]}/lineage`, { token });
    const parents = lineage.body.parents.map((p: any) => `${p.kind} ${p.blueprint.id}`).sort();
    expect(parents).toEqual([`breed ${shop.id}`, `breed ${blog.id}`].sort());
  });

  it('refuses sources with no module in common and writes nothing', async () => {
    const other = await createBlueprint(server.rest, token, {
      name: 'Other',
      modules: [{ key: 'x', kind: 'service' }],
      steps: [{ key: 'x1', module_key: 'x' }],
    });
    const before = await writtenRows(server.databaseUrl);
    const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'intersect', source_blueprint_ids: [shop.id, other.id] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('no module key in common');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});

describe('mutate', () => {
  const wirePlan = (body: any) => ({
    modules: body.modules.map(moduleFromWire),
    steps: body.steps.map(stepFromWire),
    configuration: body.configuration,
    designSystem: body.design_system,
  });

  it('writes the seeded mutation of the source: the same seed twice gives the same plan', async () => {
    const first = await resultBlueprint(await runTool(server.rest, token, 'mutate', [blog.id], [{}], { seed: 42, rate: 0.8 }));
    const second = await resultBlueprint(await runTool(server.rest, token, 'mutate', [blog.id], [{ name: 'Again' }], { seed: 42, rate: 0.8 }));
    const other = await resultBlueprint(await runTool(server.rest, token, 'mutate', [blog.id], [{}], { seed: 'another', rate: 0.8 }));
    const expected = mutatePlan(wirePlan(blog), 42, 0.8);
    expect(planOf(first)).toEqual({
      modules: expected.modules.map(moduleToWire),
      steps: expected.steps.map(stepToWire),
      configuration: expected.configuration,
      design_system: expected.designSystem,
    });
    expect(planOf(second)).toEqual(planOf(first));
    expect(planOf(first)).not.toEqual(planOf(blog));
    expect(planOf(other)).not.toEqual(planOf(first));
    expect(first.forked_from).toEqual({ id: blog.id, slug: blog.slug, name: blog.name });
  });

  it('at rate 0 copies the plan unchanged', async () => {
    const bp = await resultBlueprint(await runTool(server.rest, token, 'mutate', [shop.id], [{}], { seed: 1, rate: 0 }));
    expect(planOf(bp)).toEqual(planOf(shop));
  });

  it('rejects a rate out of range and a missing seed, starting nothing', async () => {
    const before = await writtenRows(server.databaseUrl);
    const high = await server.rest.post('/api/tools/operations', {
      token,
      body: { tool_type: 'mutate', source_blueprint_ids: [shop.id], params: { seed: 1, rate: 1.5 } },
    });
    expect(high.status).toBe(400);
    expect(high.body.error.details.issues.map((i: any) => i.path)).toContain('params/rate');
    const noSeed = await server.rest.post('/api/tools/operations', {
      token,
      body: { tool_type: 'mutate', source_blueprint_ids: [shop.id], params: { rate: 0.5 } },
    });
    expect(noSeed.status).toBe(400);
    expect(noSeed.body.error.details.issues.map((i: any) => i.path)).toContain('params/seed');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });

  it('rejects a bad confirmation (unknown field) and stays usable', async () => {
    const started = await startTool(server.rest, token, 'mutate', [shop.id], { seed: 5 });
    const before = await writtenRows(server.databaseUrl);
    await expectRejected(server.rest, token, started, await submit(server.rest, token, started, { colour: 'red' }), 'submission/colour');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
    const ok = await submit(server.rest, token, started, {});
    expect(ok.status).toBe(200);
    expect(ok.body.result.rate).toBe(0.3);
  });
});
