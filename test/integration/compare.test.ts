import { CompareWithParentDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { editPlan, sql } from '../fixtures/history';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let owner: string;
let forker: string;

const compare = (id: string, token?: string) => server.rest.get(`/api/blueprints/${id}/compare`, { token: token ?? reader });

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  owner = await server.rest.agentToken('parent owner');
  forker = await server.rest.agentToken('forker');
});
afterAll(() => server.close());

const emptyDiff = {
  modules: { added: [], removed: [], changed: [] },
  steps: { added: [], removed: [], changed: [], reordered: false },
  configuration: { added: [], removed: [], changed: [] },
  design_system: { added: [], removed: [], changed: [] },
  sections_touched: [],
};

it('reports a fresh fork as identical to its parent at the fork point', async () => {
  const parent = await createBlueprint(server.rest, owner, { name: 'Fresh parent' });
  const child = await fork(server.rest, forker, parent.id);
  const res = await compare(child.id);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    blueprint_id: child.id,
    parent: { id: parent.id, slug: parent.slug, name: parent.name },
    base_version: 1,
    parent_version: 1,
    status: 'identical',
    ahead: emptyDiff,
    behind: emptyDiff,
    modules: [],
    steps: [],
  });
});

it('shows per module and step what the fork did (ahead) and what the parent did since (behind), with conflicts', async () => {
  const parent = await createBlueprint(server.rest, owner, { name: 'Moving parent' });
  const child = await fork(server.rest, forker, parent.id);
  await editPlan(server, parent.id, (plan) => {
    plan.modules.push({ key: 'auth', name: 'Auth', summary: '', kind: 'service', dependsOn: ['db'] });
    plan.steps.push({ key: 'login', moduleKey: 'auth', title: 'Login', instructions: 'sessions', acceptance: [] });
    plan.steps.find((s) => s.key === 'endpoints')!.title = 'Build the REST endpoints';
  });
  await editPlan(server, child.id, (plan) => {
    plan.steps = plan.steps.filter((s) => s.key !== 'pages');
    plan.steps.find((s) => s.key === 'endpoints')!.instructions = 'GraphQL instead';
    plan.steps.find((s) => s.key === 'schema')!.moduleKey = 'api';
    plan.configuration.runtime = 'deno';
  });
  const { body } = await compare(child.id, forker);
  expect(body).toMatchObject({ base_version: 1, parent_version: 2, status: 'diverged' });
  expect(body.ahead).toEqual({
    modules: { added: [], removed: [], changed: [] },
    steps: {
      added: [],
      removed: ['pages'],
      changed: [
        { key: 'schema', fields: ['module_key'] },
        { key: 'endpoints', fields: ['instructions'] },
      ],
      reordered: false,
    },
    configuration: { added: [], removed: [], changed: ['runtime'] },
    design_system: { added: [], removed: [], changed: [] },
    sections_touched: ['steps', 'configuration'],
  });
  expect(body.behind).toMatchObject({
    modules: { added: ['auth'], removed: [], changed: [] },
    steps: { added: ['login'], removed: [], changed: [{ key: 'endpoints', fields: ['title'] }] },
    sections_touched: ['modules', 'steps'],
  });
  expect(body.modules).toEqual([{ key: 'auth', ahead: null, behind: { change: 'added', fields: [] }, conflict: false }]);
  expect(body.steps).toEqual([
    { key: 'endpoints', ahead: { change: 'changed', fields: ['instructions'] }, behind: { change: 'changed', fields: ['title'] }, conflict: true },
    { key: 'login', ahead: null, behind: { change: 'added', fields: [] }, conflict: false },
    { key: 'pages', ahead: { change: 'removed', fields: [] }, behind: null, conflict: false },
    { key: 'schema', ahead: { change: 'changed', fields: ['module_key'] }, behind: null, conflict: false },
  ]);
});

it("measures from the parent's version at fork time, not its first or latest", async () => {
  const parent = await createBlueprint(server.rest, owner, { name: 'Versioned parent' });
  await editPlan(server, parent.id, (plan) => void plan.steps.push({ key: 'before-fork', moduleKey: 'db', title: 't', instructions: 'i', acceptance: [] }));
  const child = await fork(server.rest, forker, parent.id);
  await editPlan(server, parent.id, (plan) => void plan.steps.push({ key: 'after-fork', moduleKey: 'db', title: 't', instructions: 'i', acceptance: [] }));
  const { body } = await compare(child.id);
  expect(body).toMatchObject({ base_version: 2, parent_version: 3, status: 'behind' });
  expect(body.behind.steps.added).toEqual(['after-fork']);
  expect(body.ahead.sections_touched).toEqual([]);
});

it('answers 400 for a blueprint that is not a fork', async () => {
  const original = await createBlueprint(server.rest, owner, { name: 'No parent' });
  const res = await compare(original.id);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
});

it('answers 404 when the parent is out of sight, and for a fork the caller may not see', async () => {
  const parent = await createBlueprint(server.rest, owner, { name: 'Hidden later' });
  const child = await fork(server.rest, forker, parent.id);
  await sql(server, "update blueprint set visibility = 'private' where id = ?", [parent.id]);
  const hidden = await compare(child.id, forker);
  expect(hidden.status).toBe(404);
  expect(hidden.body.error.message).toMatch(/parent/);
  expect((await compare(child.id, owner)).status).toBe(200);
  const secret = await createBlueprint(server.rest, owner, { name: 'Secret parent', visibility: 'private' });
  const secretFork = await fork(server.rest, owner, secret.id);
  expect((await compare(secretFork.id, forker)).status).toBe(404);
  expect((await compare(secretFork.id, reader)).status).toBe(404);
  expect((await server.rest.get(`/api/blueprints/${secretFork.id}/compare`)).status).toBe(401);
  expect((await compare('no-such-blueprint')).status).toBe(404);
});

it('answers the same comparison over GraphQL, with the same errors', async () => {
  const parent = await createBlueprint(server.rest, owner, { name: 'GraphQL parent' });
  const child = await fork(server.rest, forker, parent.id);
  await editPlan(server, child.id, (plan) => void (plan.designSystem.font = 'Inter'));
  const data = await server.gql.ok(CompareWithParentDocument, { id: child.id }, reader);
  expect(data.compareWithParent).toMatchObject({
    blueprint: { id: child.id },
    parent: { id: parent.id },
    baseVersion: 1,
    status: 'AHEAD',
    ahead: { designSystem: { added: ['font'] }, sectionsTouched: ['designSystem'], isEmpty: false },
    behind: { isEmpty: true },
  });
  const notFork = await server.gql.request(CompareWithParentDocument, { id: parent.id }, reader);
  expect(notFork.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
});
