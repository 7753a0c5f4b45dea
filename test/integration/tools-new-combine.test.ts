import { createBlueprint } from '../fixtures/blueprints';
import { blogSpec, clusteredSpec, shopSpec } from '../fixtures/plans';
import { expectRejected, planOf, runTool, startTool, storedOrigin, submit, submitAll, writtenRows } from '../fixtures/tools';
import { BlueprintProvenanceDocument } from '../generated/graphql';
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

/** `moduleKey <- source slug:sourceModuleKey` lines of a blueprint's GraphQL provenance. */
async function provenanceLines(id: string, viewer = token): Promise<string[]> {
  const data = await server.gql.ok(BlueprintProvenanceDocument, { id }, viewer);
  return data.blueprint!.provenance.map((p) => `${p.moduleKey} <- ${p.sourceBlueprint?.slug ?? '(hidden)'}:${p.sourceModuleKey}`);
}

async function expectBreedLineage(childId: string, parentIds: string[]): Promise<void> {
  const up = await server.rest.get(`/api/blueprints/${childId}/lineage`, { token });
  expect(up.body.parents.map((p: any) => `${p.kind} ${p.blueprint.id}`).sort()).toEqual(parentIds.map((id) => `breed ${id}`).sort());
  for (const parentId of parentIds) {
    const down = await server.rest.get(`/api/blueprints/${parentId}/lineage`, { token });
    expect(down.body.children).toContainEqual({ kind: 'breed', blueprint: expect.objectContaining({ id: childId }) });
  }
}

describe('breed', () => {
  it('shows the parents and their conflicts, then builds the offspring from the chosen modules', async () => {
    const started = await startTool(server.rest, token, 'breed', [shop.id, blog.id], { description: 'A shop with a newsletter' });
    expect(started.total_steps).toBe(2);
    expect(started.prompt).toContain('module "db" differs (summary)');
    expect(started.prompt).toContain('step "schema" differs (instructions)');
    expect(started.prompt).toContain('design system "colors.primary"');
    expect(started.prompt).toContain(`id ${blog.id}`);
    const [chosen, final] = await submitAll(server.rest, token, started, [
      {
        modules: [
          { key: 'db', from: blog.id },
          { key: 'api', from: shop.id },
          { key: 'web', from: shop.id },
          { key: 'mailer', from: blog.slug },
        ],
        design_system_from: blog.id,
      },
      { name: 'Newsletter shop', tags: ['e-commerce'] },
    ]);
    expect(chosen.prompt).toContain('db from source 2, api from source 1, mailer from source 2, web from source 1');
    const bp = await resultBlueprint(final);
    expect({ name: bp.name, tags: bp.tags, visibility: bp.visibility, forked_from: bp.forked_from }).toEqual({
      name: 'Newsletter shop',
      tags: ['e-commerce'],
      visibility: 'public',
      forked_from: null,
    });
    expect(planOf(bp)).toEqual({
      modules: [
        { key: 'db', name: 'Database', kind: 'data', summary: 'Posts and comments', depends_on: [] },
        { key: 'api', name: 'API', kind: 'backend', summary: 'REST API', depends_on: ['db'] },
        { key: 'mailer', name: 'Mailer', kind: 'service', summary: 'Newsletters', depends_on: [] },
        { key: 'web', name: 'Storefront', kind: 'frontend', summary: 'React storefront', depends_on: ['api'] },
      ],
      // Woven from the parents' orders, then the db step moved before the api step that needs it.
      steps: [
        { key: 'schema', module_key: 'db', title: 'Schema', instructions: 'Tables for posts', acceptance: ['migrations apply'] },
        { key: 'endpoints', module_key: 'api', title: 'Endpoints', instructions: 'Order routes', acceptance: ['tests pass'] },
        { key: 'pages', module_key: 'web', title: 'Pages', instructions: 'Catalogue pages', acceptance: ['renders'] },
        { key: 'send', module_key: 'mailer', title: 'Send', instructions: 'Weekly digest', acceptance: ['mail arrives'] },
      ],
      configuration: { runtime: 'node', language: 'typescript', database: 'postgres' },
      design_system: { colors: { primary: '#ff0000' }, font: 'Inter' },
    });
    expect(final.result.provenance).toEqual([
      { module_key: 'db', source_blueprint_id: blog.id },
      { module_key: 'api', source_blueprint_id: shop.id },
      { module_key: 'mailer', source_blueprint_id: blog.id },
      { module_key: 'web', source_blueprint_id: shop.id },
    ]);
    expect(await provenanceLines(bp.id)).toEqual(['db <- blog:db', 'api <- shop:api', 'mailer <- blog:mailer', 'web <- shop:web']);
    const gql = await server.gql.ok(BlueprintProvenanceDocument, { id: bp.id }, token);
    expect(new Set(gql.blueprint!.provenance.map((p) => p.operationId))).toEqual(new Set([started.operation_id]));
    await expectBreedLineage(bp.id, [shop.id, blog.id]);
    const origin = await storedOrigin(server.databaseUrl, bp.id);
    expect(origin.version).toEqual([
      {
        number: 1,
        cause: 'breed',
        changes: expect.objectContaining({ operation_id: started.operation_id, bred_from: [shop.id, blog.id], modules_added: ['db', 'api', 'mailer', 'web'] }),
      },
    ]);
    expect(origin.links).toEqual([shop.id, blog.id].sort().map((parent_id) => ({ parent_id, kind: 'breed', operation_id: started.operation_id })));
  });

  it('renames a step key that two parents use for different modules', async () => {
    const other = await createBlueprint(server.rest, token, {
      name: 'Other',
      modules: [{ key: 'worker', kind: 'service' }],
      steps: [{ key: 'pages', module_key: 'worker', title: 'Paging jobs' }],
    });
    const final = await runTool(
      server.rest,
      token,
      'breed',
      [shop.id, other.id],
      [
        {
          modules: [
            { key: 'db', from: shop.id },
            { key: 'api', from: shop.id },
            { key: 'web', from: shop.id },
            { key: 'worker', from: other.id },
          ],
        },
        {},
      ],
    );
    expect(final.result.renamed_steps).toEqual([{ from: 'pages', source_blueprint_id: other.id, key: 'pages-2' }]);
    const bp = await resultBlueprint(final);
    expect(bp.steps.map((s: any) => `${s.key}:${s.module_key}`)).toEqual(['schema:db', 'endpoints:api', 'pages:web', 'pages-2:worker']);
    expect(bp.name).toBe('Shop × Other');
  });

  it('rejects one parent, six parents, and a module the named parent lacks; the operation stays usable', async () => {
    const one = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'breed', source_blueprint_ids: [shop.id] } });
    expect(one.status).toBe(400);
    expect(one.body.error.message).toBe('breed takes 2 to 5 source blueprint(s); got 1');
    const sixIds = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
    const six = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'breed', source_blueprint_ids: sixIds } });
    expect({ status: six.status, path: six.body.error.details.issues[0].path }).toEqual({ status: 400, path: 'source_blueprint_ids' });
    const before = await writtenRows(server.databaseUrl);
    const started = await startTool(server.rest, token, 'breed', [shop.id, blog.id]);
    const lacks = await submit(server.rest, token, started, {
      modules: [
        { key: 'db', from: shop.id },
        { key: 'web', from: blog.id },
      ],
    });
    await expectRejected(server.rest, token, started, lacks, 'submission/modules/1/key');
    expect(lacks.body.error.message).toContain('parent "Blog" has no module "web"');
    const notParent = await submit(server.rest, token, started, {
      modules: [
        { key: 'db', from: shop.id },
        { key: 'x', from: '00000000-0000-4000-8000-000000000000' },
      ],
    });
    await expectRejected(server.rest, token, started, notParent, 'submission/modules/1/from');
    const oneSided = await submit(server.rest, token, started, { modules: [{ key: 'db', from: shop.id }] });
    await expectRejected(server.rest, token, started, oneSided, 'submission/modules');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
    const ok = await submit(server.rest, token, started, {
      modules: [
        { key: 'db', from: shop.id },
        { key: 'mailer', from: blog.id },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.step).toBe(2);
  });

  it('rejects choices whose dependencies form a cycle, naming the module that closes it', async () => {
    const p1 = await createBlueprint(server.rest, token, {
      name: 'P1',
      modules: [
        { key: 'x', kind: 'service', depends_on: ['y'] },
        { key: 'y', kind: 'service' },
      ],
      steps: [{ key: 's1', module_key: 'x' }],
    });
    const p2 = await createBlueprint(server.rest, token, {
      name: 'P2',
      modules: [
        { key: 'y', kind: 'service', depends_on: ['x'] },
        { key: 'x', kind: 'service' },
      ],
      steps: [{ key: 's2', module_key: 'y' }],
    });
    const started = await startTool(server.rest, token, 'breed', [p1.id, p2.id]);
    const before = await writtenRows(server.databaseUrl);
    const res = await submit(server.rest, token, started, {
      modules: [
        { key: 'x', from: p1.id },
        { key: 'y', from: p2.id },
      ],
    });
    await expectRejected(server.rest, token, started, res, 'submission/modules/1/from');
    expect(res.body.error.message).toContain('cycle: y -> x -> y');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});

describe('splice', () => {
  it('inserts the chosen donor modules with their steps; a dependency binds to the host module of that key', async () => {
    const started = await startTool(server.rest, token, 'splice', [shop.id, blog.id]);
    expect(started.total_steps).toBe(2);
    expect(started.prompt).toContain('HOST — Source 1: "Shop"');
    const [, final] = await submitAll(server.rest, token, started, [
      { modules: [{ key: 'mailer' }, { key: 'admin' }, { key: 'api', as: 'posts-api' }] },
      { name: 'Shop with CMS' },
    ]);
    const bp = await resultBlueprint(final);
    expect(planOf(bp)).toEqual({
      modules: [
        ...shop.modules,
        { key: 'mailer', name: 'Mailer', kind: 'service', summary: 'Newsletters', depends_on: [] },
        // admin depended on the donor's api, which is spliced in as posts-api.
        { key: 'admin', name: 'Admin', kind: 'frontend', summary: 'Editor UI', depends_on: ['posts-api'] },
        { key: 'posts-api', name: 'API', kind: 'backend', summary: 'Posts API', depends_on: ['db'] },
      ],
      steps: [
        shop.steps[0],
        { key: 'posts', module_key: 'posts-api', title: 'Posts', instructions: 'Post routes', acceptance: ['tests pass'] },
        { key: 'editor', module_key: 'admin', title: 'Editor', instructions: 'Markdown editor', acceptance: ['saves drafts'] },
        { key: 'send', module_key: 'mailer', title: 'Send', instructions: 'Weekly digest', acceptance: ['mail arrives'] },
        shop.steps[1],
        shop.steps[2],
      ],
      configuration: shop.configuration,
      design_system: shop.design_system,
    });
    expect(final.result.inserted).toEqual([
      { key: 'mailer', as: 'mailer' },
      { key: 'admin', as: 'admin' },
      { key: 'api', as: 'posts-api' },
    ]);
    expect(await provenanceLines(bp.id)).toEqual([
      'db <- shop:db',
      'api <- shop:api',
      'web <- shop:web',
      'mailer <- blog:mailer',
      'admin <- blog:admin',
      'posts-api <- blog:api',
    ]);
    await expectBreedLineage(bp.id, [shop.id, blog.id]);
  });

  it('rejects a module the donor lacks and a key the host already has; nothing is written', async () => {
    const started = await startTool(server.rest, token, 'splice', [shop.id, blog.id]);
    const before = await writtenRows(server.databaseUrl);
    const lacks = await submit(server.rest, token, started, { modules: [{ key: 'web' }] });
    await expectRejected(server.rest, token, started, lacks, 'submission/modules/0/key');
    expect(lacks.body.error.message).toContain('the donor "Blog" has no module "web"');
    const clash = await submit(server.rest, token, started, { modules: [{ key: 'mailer' }, { key: 'api' }] });
    await expectRejected(server.rest, token, started, clash, 'submission/modules/1/key');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
  });
});

describe('weave', () => {
  it('unites the plans and adds the cross-module dependencies, keeping steps runnable', async () => {
    const started = await startTool(server.rest, token, 'weave', [shop.id, blog.id]);
    expect(started.total_steps).toBe(2);
    expect(started.prompt).toContain("modules several sources hold keep the first source's version: db, api");
    const [, final] = await submitAll(server.rest, token, started, [
      {
        dependencies: [
          { module: 'mailer', depends_on: ['api', 'db'] },
          { module: 'admin', depends_on: ['api'] },
        ],
      },
      {},
    ]);
    expect(final.result.dependencies_added).toEqual([
      { module: 'mailer', depends_on: 'api' },
      { module: 'mailer', depends_on: 'db' },
    ]);
    const bp = await resultBlueprint(final);
    expect(bp.name).toBe('Shop + Blog');
    expect(bp.modules.map((m: any) => `${m.key}:${m.depends_on.join(',')}`)).toEqual(['db:', 'api:db', 'admin:api', 'mailer:api,db', 'web:api']);
    expect(bp.steps.map((s: any) => s.key)).toEqual(['schema', 'posts', 'endpoints', 'editor', 'send', 'pages']);
    expect(bp.steps[0].instructions).toBe('Tables for orders');
    expect(await provenanceLines(bp.id)).toEqual(['db <- shop:db', 'api <- shop:api', 'admin <- blog:admin', 'mailer <- blog:mailer', 'web <- shop:web']);
    await expectBreedLineage(bp.id, [shop.id, blog.id]);
  });

  it('rejects a dependency that closes a cycle and an order that breaks dependencies; nothing is written', async () => {
    const started = await startTool(server.rest, token, 'weave', [shop.id, blog.id]);
    const before = await writtenRows(server.databaseUrl);
    const cycle = await submit(server.rest, token, started, {
      dependencies: [
        { module: 'mailer', depends_on: ['web'] },
        { module: 'db', depends_on: ['mailer'] },
      ],
    });
    await expectRejected(server.rest, token, started, cycle, 'submission/dependencies/1/depends_on/0');
    expect(cycle.body.error.message).toContain('would make a dependency cycle: db -> mailer -> web -> api -> db');
    const unknown = await submit(server.rest, token, started, { dependencies: [{ module: 'nope', depends_on: ['db'] }] });
    await expectRejected(server.rest, token, started, unknown, 'submission/dependencies/0/module');
    const order = await submit(server.rest, token, started, { dependencies: [], order: ['posts', 'schema', 'endpoints', 'pages', 'editor', 'send'] });
    await expectRejected(server.rest, token, started, order, 'submission/order/0');
    expect(await writtenRows(server.databaseUrl)).toEqual(before);
    const ok = await submit(server.rest, token, started, { dependencies: [], order: ['schema', 'send', 'endpoints', 'posts', 'pages', 'editor'] });
    expect(ok.status).toBe(200);
    expect(ok.body.prompt).toContain('1. schema');
  });
});

describe('style_transfer', () => {
  it('writes the plan of the first source with the design system of the second, adapted by the agent', async () => {
    const started = await startTool(server.rest, token, 'style_transfer', [shop.id, blog.id]);
    expect(started.total_steps).toBe(2);
    expect(started.prompt).toContain('"font":"Inter"');
    const [, final] = await submitAll(server.rest, token, started, [
      { design_system_overrides: { radius: 4 }, step_updates: [{ key: 'pages', instructions: 'Catalogue pages in red and Inter' }] },
      { visibility: 'private' },
    ]);
    const bp = await resultBlueprint(final);
    expect(planOf(bp)).toEqual({
      modules: shop.modules,
      steps: [shop.steps[0], shop.steps[1], { ...shop.steps[2], instructions: 'Catalogue pages in red and Inter' }],
      configuration: shop.configuration,
      design_system: { colors: { primary: '#ff0000' }, font: 'Inter', radius: 4 },
    });
    expect(bp.visibility).toBe('private');
    expect(final.result).toMatchObject({ content_from: shop.id, design_system_from: blog.id, steps_adapted: ['pages'] });
    expect(await provenanceLines(bp.id)).toEqual(['db <- shop:db', 'api <- shop:api', 'web <- shop:web']);
    await expectBreedLineage(bp.id, [shop.id, blog.id]);
  });

  it('refuses a style source without a design system, and an update of an unknown step', async () => {
    const bare = await createBlueprint(server.rest, token, clusteredSpec);
    const before = await writtenRows(server.databaseUrl);
    const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'style_transfer', source_blueprint_ids: [shop.id, bare.id] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('source_blueprint_ids/1');
    const started = await startTool(server.rest, token, 'style_transfer', [shop.id, blog.id]);
    await expectRejected(
      server.rest,
      token,
      started,
      await submit(server.rest, token, started, { step_updates: [{ key: 'nope', title: 'x' }] }),
      'submission/step_updates/0/key',
    );
    expect((await writtenRows(server.databaseUrl)).blueprints).toBe(before.blueprints);
  });
});
