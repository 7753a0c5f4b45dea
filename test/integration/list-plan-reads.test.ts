import { createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { createTeamBlueprint } from '../fixtures/teams';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';
import { captureSql as capture } from '../helpers/sql-capture';

/**
 * REST and MCP lists answer cards, so no statement they send may read a plan (up to 1 MiB of JSON each):
 * not the listed items', not the blueprint the list is about (docs/limits.md, "Response budget"). Parsing
 * plans nobody returns held the event loop for hundreds of ms per page (bench/abuse).
 */
let server: TestServer;
let person: string;
let rootId: string;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  person = (await server.rest.signUp()).token;
  const root = await createBlueprint(server.rest, person, { name: 'Listed root' });
  rootId = root.id;
  await fork(server.rest, person, rootId);
  await fork(server.rest, person, rootId);
  teamId = (await createTeam(server.rest, person, [], 'Listed team')).id;
  await createTeamBlueprint(server.rest, person, teamId, { name: 'Team one' });
}, 60_000);
afterAll(() => server.close());

/** Statements that read a blueprint's plan column (`plan`, not `plan_bytes`), or every column of a blueprint. */
const planReads = (statements: string[]) => statements.filter((sql) => /\bplan\b/.test(sql) || /\.\*.* from "?blueprint"? /.test(sql));

const restLists: Array<[string, () => string, (body: any) => unknown[]]> = [
  ['GET /api/blueprints/:id/forks', () => `/api/blueprints/${rootId}/forks?limit=100`, (b) => b.items],
  ['GET /api/blueprints/:id/lineage', () => `/api/blueprints/${rootId}/lineage`, (b) => b.children],
  ['GET /api/teams/:id/blueprints', () => `/api/teams/${teamId}/blueprints`, (b) => b.items],
  ['GET /api/registry/trending', () => '/api/registry/trending?limit=100', (b) => b.items],
];

describe.each(restLists)('%s', (_name, path, itemsOf) => {
  it('reads no plan, of the listed blueprints or of the one asked about', async () => {
    let res: any;
    const statements = await capture(async () => (res = await server.rest.get(path(), { token: person })));
    expect(res.status).toBe(200);
    expect(Array.isArray(itemsOf(res.body))).toBe(true);
    expect(statements.some((sql) => /\bblueprint\b/.test(sql))).toBe(true);
    expect(planReads(statements)).toEqual([]);
  });
});

it('the fork and lineage lists still carry the cards of what they list', async () => {
  const forks = (await server.rest.get(`/api/blueprints/${rootId}/forks`, { token: person })).body;
  expect(forks.items).toHaveLength(2);
  expect(forks.items[0]).toMatchObject({ name: 'Listed root', forked_from: { id: rootId, name: 'Listed root' }, module_count: expect.any(Number) });
  const lineage = (await server.rest.get(`/api/blueprints/${rootId}/lineage`, { token: person })).body;
  expect(lineage.children).toHaveLength(2);
  expect(lineage.children[0].blueprint).toMatchObject({ name: 'Listed root', step_count: expect.any(Number) });
  const team = (await server.rest.get(`/api/teams/${teamId}/blueprints`, { token: person })).body;
  expect(team.items.map((i: any) => i.name)).toEqual(['Team one']);
});

it.each([
  ['blueprint_forks', () => ({ blueprint_id: rootId, limit: 100 }), (b: any) => b.items],
  ['blueprint_lineage', () => ({ blueprint_id: rootId }), (b: any) => b.children],
])('MCP %s reads no plan', async (tool, args, itemsOf) => {
  let answer: any;
  const statements = await capture(async () => (answer = await mcpCall(server.url, person, tool, args())));
  expect(itemsOf(mcpResultBody(answer))).toHaveLength(2);
  expect(planReads(statements)).toEqual([]);
});
