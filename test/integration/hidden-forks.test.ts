import { createBlueprint } from '../fixtures/blueprints';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 9: a private fork of a public blueprint is never counted in a public figure.
 * `forks_count` counts public forks only (the ones `/forks`, `forks` and lineage list to anyone), over
 * REST, GraphQL (`forksCount`, `forks.totalCount`), MCP, registry cards and trending.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

async function fork(token: string, id: string, visibility: 'public' | 'private'): Promise<any> {
  const res = await server.rest.post(`/api/blueprints/${id}/fork`, { token });
  expect(res.status).toBe(201);
  if (visibility === 'private')
    expect((await server.rest.patch(`/api/blueprints/${res.body.id}`, { token, body: { visibility: 'private' } })).status).toBe(200);
  return res.body;
}

async function counts(id: string, name: string, token: string) {
  const rest = (await server.rest.get(`/api/blueprints/${id}`, { token })).body.forks_count;
  const card = (await server.rest.get(`/api/registry?q=${encodeURIComponent(name)}`, { token })).body.items.find((c: any) => c.id === id)?.forks_count;
  const gql = (await server.gql.ok(`query($id: ID!) { blueprint(id: $id) { forksCount forks(first: 10) { totalCount } } }`, { id }, token)) as any;
  const trending = (await server.rest.get('/api/registry/trending?limit=100', { token })).body.items.find((t: any) => t.blueprint?.id === id || t.id === id);
  const gqlTrending = ((await server.gql.ok('{ trending(limit: 100) { activity { forks } blueprint { id } } }', {}, token)) as any).trending.find(
    (t: any) => t.blueprint.id === id,
  );
  const viaTool = mcpResultBody(await mcpCall(server.url, token, 'blueprint_get', { blueprint_id: id })).forks_count;
  return {
    rest,
    card,
    mcp: viaTool,
    forksCount: gql.blueprint.forksCount,
    totalCount: gql.blueprint.forks.totalCount,
    trending: trending?.activity?.forks ?? trending?.forks,
    gqlTrending: gqlTrending?.activity.forks,
  };
}

it('counts only public forks, to a stranger and to the fork owner alike, and follows visibility changes and deletions', async () => {
  const owner = await server.rest.signUp();
  const forker = await server.rest.signUp();
  const stranger = await server.rest.signUp();
  const name = `Counted ${Date.now()}`;
  const bp = await createBlueprint(server.rest, owner.token, { name });
  await fork(forker.token, bp.id, 'public');
  const hidden = await fork(forker.token, bp.id, 'private');
  const one = { rest: 1, card: 1, mcp: 1, forksCount: 1, totalCount: 1, trending: 1, gqlTrending: 1 };
  expect(await counts(bp.id, name, stranger.token)).toEqual(one);
  expect(await counts(bp.id, name, forker.token)).toEqual(one);

  // Made public: counted; private again: not; deleted while private: nothing changes.
  expect((await server.rest.patch(`/api/blueprints/${hidden.id}`, { token: forker.token, body: { visibility: 'public' } })).status).toBe(200);
  expect((await counts(bp.id, name, stranger.token)).rest).toBe(2);
  expect((await server.rest.patch(`/api/blueprints/${hidden.id}`, { token: forker.token, body: { visibility: 'private' } })).status).toBe(200);
  expect(await counts(bp.id, name, stranger.token)).toEqual(one);
  expect((await server.rest.delete(`/api/blueprints/${hidden.id}`, { token: forker.token })).status).toBe(204);
  expect(await counts(bp.id, name, stranger.token)).toEqual(one);
});
