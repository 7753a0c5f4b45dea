import { BlueprintVersionsDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { runTool, versions } from '../fixtures/tool-driver';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before DESIGN.md section 9 need a token now. */
let reader: string;
let owner: string;
let other: string;
let pub: any;
let priv: any;

/** Adds one acceptance check to step `schema`: one more version. */
const fuzzOnce = (token: string, id: string, check: string) =>
  runTool(server.rest, token, { tool_type: 'fuzz', source_blueprint_ids: [id] }, [{ checks: [{ step_key: 'schema', acceptance: [check] }] }]);

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  [owner, other] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('other')]);
  pub = await createBlueprint(server.rest, owner, { name: 'Public plan' });
  priv = await createBlueprint(server.rest, owner, { name: 'Private plan', visibility: 'private' });
  await fuzzOnce(owner, pub.id, 'rejects an empty migration');
  await fuzzOnce(owner, pub.id, 'survives a concurrent migration');
});
afterAll(() => server.close());

describe('GET /api/blueprints/:id/versions', () => {
  it('lists the owner its versions newest first, with author, cause and change metadata', async () => {
    const res = await server.rest.get(`/api/blueprints/${pub.id}/versions`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(res.body.items.map((v: any) => [v.number, v.cause])).toEqual([
      [3, 'fuzz'],
      [2, 'fuzz'],
      [1, 'create'],
    ]);
    const [newest] = res.body.items;
    expect(Object.keys(newest).sort()).toEqual(['author_id', 'cause', 'changes', 'created_at', 'number']);
    expect(newest.author_id).toBe(pub.owner_id);
    expect(newest.changes).toMatchObject({ sections_touched: ['steps'], steps: { changed: [{ key: 'schema', fields: ['acceptance'] }] }, checks_added: 1 });
    expect(Date.parse(newest.created_at)).toBeGreaterThanOrEqual(Date.parse(res.body.items[2].created_at));
  });

  it('pages with limit and offset, and rejects a page size out of range', async () => {
    const page = await server.rest.get(`/api/blueprints/${pub.slug}/versions?limit=1&offset=1`, { token: owner });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.items.map((v: any) => v.number)).toEqual([2]);
    const bad = await server.rest.get(`/api/blueprints/${pub.id}/versions?limit=101`, { token: owner });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'limit' }] } });
  });

  it('answers 403 to another caller on a public blueprint', async () => {
    const res = await server.rest.get(`/api/blueprints/${pub.id}/versions`, { token: other });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('answers 404 to another caller on a private blueprint, as for one that does not exist', async () => {
    const res = await server.rest.get(`/api/blueprints/${priv.id}/versions`, { token: other });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const missing = await server.rest.get('/api/blueprints/00000000-0000-4000-8000-000000000000/versions', { token: other });
    expect(missing.status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${priv.id}/versions`, { token: owner })).body.total).toBe(1);
  });

  it('answers 401 to an anonymous caller', async () => {
    const res = await server.rest.get(`/api/blueprints/${pub.id}/versions`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it("starts a fork's history at version 1 recording the parent and its version at the fork point", async () => {
    const f = await fork(server.rest, other, pub.id);
    const items = await versions(server.rest, other, f.id);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ number: 1, cause: 'fork', author_id: f.owner_id, changes: { forked_from: pub.id, parent_version: 3 } });
  });
});

describe('Blueprint.versions (GraphQL)', () => {
  it('gives the owner a connection, newest first, with cursors that page on', async () => {
    const first = await server.gql.ok(BlueprintVersionsDocument, { id: pub.id, first: 2 }, owner);
    const conn = first.blueprint!.versions!;
    expect(conn.totalCount).toBe(3);
    expect(conn.edges.map((e) => [e.node.number, e.node.cause])).toEqual([
      [3, 'fuzz'],
      [2, 'fuzz'],
    ]);
    expect(conn.edges[0]!.node.author).toEqual({ id: pub.owner_id, kind: 'AGENT' });
    expect(conn.edges[0]!.node.changes).toMatchObject({ checks_added: 1, steps_fuzzed: ['schema'] });
    expect(conn.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = await server.gql.ok(BlueprintVersionsDocument, { id: pub.id, first: 2, after: conn.pageInfo.endCursor }, owner);
    expect(next.blueprint!.versions!.edges.map((e) => e.node.number)).toEqual([1]);
    expect(next.blueprint!.versions!.pageInfo.hasNextPage).toBe(false);
  });

  it('answers FORBIDDEN on the field to another caller of a public blueprint, keeping the rest of it', async () => {
    const res = await server.gql.request(BlueprintVersionsDocument, { id: pub.id }, other);
    expect(res.errors?.map((e) => [e.extensions?.code, e.path?.join('.')])).toEqual([['FORBIDDEN', 'blueprint.versions']]);
    expect(res.data?.blueprint).toEqual({ id: pub.id, name: 'Public plan', versions: null });
  });

  it('shows another caller nothing of a private blueprint', async () => {
    const res = await server.gql.request(BlueprintVersionsDocument, { id: priv.id }, other);
    expect(res.errors).toBeUndefined();
    expect(res.data?.blueprint).toBeNull();
  });

  it('answers UNAUTHENTICATED to an anonymous caller', async () => {
    const res = await server.gql.request(BlueprintVersionsDocument, { id: pub.id });
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(res.data ?? null).toBeNull();
  });

  it('loads the versions of several blueprints in the same number of statements as one', async () => {
    const third = await createBlueprint(server.rest, owner, { name: 'Third' });
    const query = (ids: string[]) =>
      `query { ${ids.map((id, i) => `b${i}: blueprint(id: "${id}") { versions(first: 2) { totalCount edges { node { number author { id } } } } }`).join(' ')} }`;
    const one = await server.gql.request(query([pub.id]), {}, owner);
    const three = await server.gql.request(query([pub.id, priv.id, third.id]), {}, owner);
    expect(three.errors).toBeUndefined();
    expect(Object.values(three.data as Record<string, any>).map((b) => b.versions.totalCount)).toEqual([3, 1, 1]);
    expect(one.sqlStatements).toBeGreaterThan(0);
    expect(three.sqlStatements).toBe(one.sqlStatements);
  });
});
