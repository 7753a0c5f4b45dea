import { PeerForkTreeDocument, PeerOneDocument, ViewerDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import type { GraphQLResult } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';
import { hashToken } from '../../src/platform/sql/tokens';

/**
 * The token lookup carried by the read (platform/graphql/deferred-viewer.ts). A token's first request is looked up
 * before anything else, as always; once the server has seen it live, a query whose root fields read the
 * viewer after their row (`blueprint`) sends the lookup in front of that row's statement: one statement
 * instead of two. Every answer must be the one the lookup-first path gives, for the owner, another caller,
 * a private blueprint, a missing one, bad arguments, and a token revoked after the server last saw it.
 */
let server: TestServer;
let ownerSignIn: string;
let otherSignIn: string;
let publicId: string;
let privateId: string;
let privateSlug: string;

beforeAll(async () => {
  server = await startTestServer();
  ownerSignIn = (await server.rest.signUp()).token;
  otherSignIn = (await server.rest.signUp()).token;
  const owner = await server.rest.accountToken(ownerSignIn);
  const root = await createBlueprint(server.rest, owner, { name: 'Carried root' });
  publicId = root.id;
  for (let i = 0; i < 3; i++) {
    const child = await fork(server.rest, owner, root.id);
    for (let j = 0; j < 2; j++) await fork(server.rest, owner, child.id);
  }
  const hidden = await createBlueprint(server.rest, owner, { name: 'Carried private', visibility: 'private' });
  privateId = hidden.id;
  privateSlug = hidden.slug;
});
afterAll(() => server.close());

type Who = 'owner' | 'other';
let minted = 0;
const freshToken = (who: Who, name = `token ${++minted}`) => server.rest.accountToken(who === 'owner' ? ownerSignIn : otherSignIn, 'read', name);

/** Revokes one of the owner's account tokens by its name (DELETE /api/account/tokens/:id). */
async function revoke(name: string): Promise<void> {
  const list = await server.rest.get<{ items: Array<{ id: string; name: string }> }>('/api/account/tokens?limit=100', { token: ownerSignIn });
  const id = list.body.items.find((t) => t.name === name)!.id;
  expect((await server.rest.delete(`/api/account/tokens/${id}`, { token: ownerSignIn })).status).toBe(204);
}

const answer = (r: GraphQLResult<unknown>) => ({ status: r.status, data: r.data, errors: r.errors });
type Send = (token: string) => Promise<GraphQLResult<unknown>>;

/**
 * The same request with a token the server has not seen (looked up first) and then with the same token
 * again (looked up by the read).
 */
async function bothPaths(token: string, send: Send): Promise<{ first: GraphQLResult<unknown>; again: GraphQLResult<unknown> }> {
  const first = await send(token);
  const again = await send(token);
  return { first, again };
}

// The ids exist once beforeAll has run, so the cases name them.
const idOf = (which: 'public' | 'private' | 'missing') =>
  which === 'public' ? publicId : which === 'private' ? privateId : '00000000-0000-4000-8000-000000000000';
const one =
  (which: 'public' | 'private' | 'missing'): Send =>
  (token) =>
    server.gql.request(PeerOneDocument, { id: idOf(which) }, token);
const tree =
  (which: 'public' | 'private'): Send =>
  (token) =>
    server.gql.request(PeerForkTreeDocument, { id: idOf(which) }, token);
const bySlug: Send = (token) => server.gql.request(`query { blueprint(slug: ${JSON.stringify(privateSlug)}) { id name stars visibility } }`, {}, token);
/** A registry page (public rows only): the plain list runs prepared, a keyword or tag filter as text; each carries the lookup. */
const registry =
  (args: string): Send =>
  (token) =>
    server.gql.request(`query { registry(${args}) { totalCount totalCountExact edges { node { id name stars } } } }`, {}, token);
const trending: Send = (token) => server.gql.request('query { trending(limit: 3) { score blueprint { id name } } }', {}, token);

describe('the token lookup carried by the read', () => {
  it.each<[string, Who, Send, boolean]>([
    ['one public blueprint, its owner', 'owner', one('public'), true],
    ['one public blueprint, another caller', 'other', one('public'), true],
    ['one private blueprint, its owner', 'owner', one('private'), true],
    ['one private blueprint, another caller (null, as a 404)', 'other', one('private'), false],
    ['the fork tree, its owner', 'owner', tree('public'), true],
    ['the fork tree, another caller', 'other', tree('public'), true],
    ['a private blueprint by slug, its owner', 'owner', bySlug, true],
    ['a private blueprint by slug, another caller (null)', 'other', bySlug, false],
    ['the registry by stars (page and count)', 'other', registry('first: 5'), true],
    ['the registry by a keyword (relevance)', 'other', registry('q: "carried", first: 5'), true],
    ['the registry by a keyword and a tag nothing has', 'other', registry('q: "carried", tags: ["no-such-tag"], sort: STARS, first: 5'), true],
    ['the registry by trending', 'owner', registry('sort: TRENDING, first: 5'), true],
    ['trending', 'owner', trending, true],
  ])('%s: the same answer in one statement instead of two', async (_name, who, send, found) => {
    const { first, again } = await bothPaths(await freshToken(who), send);
    expect(first.status).toBe(200);
    expect(first.errors).toBeUndefined();
    expect(Object.values(first.data as object)[0] !== null).toBe(found);
    expect(answer(again)).toEqual(answer(first));
    // The first request looks the token up on its own and, as the token was never used, stamps its last use.
    expect(first.sqlStatements).toBe(again.sqlStatements + 2);
  });

  it('a one-key read that finds no row (a missing blueprint): the same answer, the token looked up after it', async () => {
    const { first, again } = await bothPaths(await freshToken('owner'), one('missing'));
    expect(first.status).toBe(200);
    expect(first.data).toEqual({ blueprint: null });
    expect(answer(again)).toEqual(answer(first));
    // A one-row read carries the lookup as a column of its row; with no row, the lookup runs after it.
    expect(again.sqlStatements).toBe(2);
    // A token revoked after the server saw it live: the same 401 a lookup first gives.
    const seen = await freshToken('owner', 'seen, then missing');
    expect((await one('public')(seen)).data).not.toBeNull();
    const unseen = await freshToken('owner', 'unseen, then missing');
    await revoke('seen, then missing');
    await revoke('unseen, then missing');
    const refused = await one('missing')(seen);
    expect(refused.status).toBe(401);
    expect(answer(refused)).toEqual(answer(await one('missing')(unseen)));
  });

  it('a carried registry page answers its rows and its count (not an empty page)', async () => {
    const { first, again } = await bothPaths(await freshToken('other'), registry('q: "carried root", first: 20'));
    const page = (again.data as { registry: { totalCount: number; edges: Array<{ node: { id: string } }> } }).registry;
    expect(page.edges.map((e) => e.node.id)).toContain(publicId);
    expect(page.totalCount).toBeGreaterThanOrEqual(1);
    expect(answer(again)).toEqual(answer(first));
    // Relevance counts in its page's statement: one statement, the lookup in it.
    expect(again.sqlStatements).toBe(1);
  });

  it('bad arguments (no statement to carry it): the same error, the token looked up on its own', async () => {
    const both: Send = (token) => server.gql.request(`query { blueprint(id: "${publicId}", slug: "x") { id } }`, {}, token);
    const { first, again } = await bothPaths(await freshToken('owner'), both);
    expect(first.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(answer(again)).toEqual(answer(first));
    expect(again.sqlStatements).toBe(1);
  });

  it('a query with another root field looks the token up first, as before', async () => {
    const token = await freshToken('owner');
    const mixed: Send = (t) => server.gql.request(`query { blueprint(id: "${privateId}") { id name } viewer { id } }`, {}, t);
    const { first, again } = await bothPaths(token, mixed);
    expect(answer(again)).toEqual(answer(first));
    expect((again.data as { viewer: { id: string } | null }).viewer).not.toBeNull();
    // As many statements as the first request, less the stamp of the token's first use: the lookup is still one of them.
    expect(again.sqlStatements).toBe(first.sqlStatements - 1);
  });

  it('a token revoked after the server saw it live is refused at once, with the answer a lookup first gives', async () => {
    const seen = await freshToken('owner', 'seen');
    expect((await one('private')(seen)).data).not.toBeNull();
    const unseen = await freshToken('owner', 'unseen');
    await revoke('seen');
    await revoke('unseen');
    for (const send of [one('private'), one('public'), tree('public'), bySlug, registry('first: 5'), registry('q: "carried"'), trending]) {
      const refused = await send(seen);
      expect(refused.status).toBe(401);
      expect(refused.data).toBeUndefined();
      expect(answer(refused)).toEqual(answer(await send(unseen)));
      expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    // A mutation is never run on a token not yet looked up: it is refused the same way.
    const star = `mutation { starBlueprint(id: "${publicId}") { id } }`;
    const refusedWrite = await server.gql.request(star, {}, seen);
    expect(answer(refusedWrite)).toEqual(answer(await server.gql.request(star, {}, unseen)));
    expect(refusedWrite.status).toBe(401);
  });

  it("stamps a token's last use at most once a minute, on the carried path too, with no write in the read itself", async () => {
    const token = await freshToken('owner');
    const sql = await SqlClient.connect(server.databaseUrl);
    try {
      const lastUsed = async () =>
        (await sql.query<{ at: Date | null }>('select last_used_at as at from access_token where token_hash = $1', [hashToken(token)]))[0]!.at;
      const setLastUsed = (ago: string) =>
        sql.query(`update access_token set last_used_at = now() - $2::interval where token_hash = $1`, [hashToken(token), ago]);
      expect(await lastUsed()).toBeNull();
      expect((await one('public')(token)).sqlStatements).toBe(3); // lookup, stamp, read
      expect((await lastUsed())!.getTime()).toBeGreaterThan(Date.now() - 30_000);

      // Seen before: the read carries the lookup. Due (over a minute old): stamped, by a statement of its own.
      await setLastUsed('2 minutes');
      const due = await one('public')(token);
      expect(due.errors).toBeUndefined();
      expect(due.sqlStatements).toBe(2);
      expect((await lastUsed())!.getTime()).toBeGreaterThan(Date.now() - 30_000);

      // Not due: the carried read is the only statement, and the stamp stays as it was.
      await setLastUsed('30 seconds');
      const before = (await lastUsed())!.getTime();
      const notDue = await one('public')(token);
      expect(notDue.sqlStatements).toBe(1);
      expect((await lastUsed())!.getTime()).toBe(before);
      // The same over REST, where the lookup runs on its own.
      expect((await server.rest.get('/api/registry?limit=1', { token })).status).toBe(200);
      expect((await lastUsed())!.getTime()).toBe(before);
    } finally {
      await sql.close();
    }
  });

  it('a caller seen before still gets the viewer-dependent answers (the viewer is set before any field reads it)', async () => {
    const token = await freshToken('owner');
    await server.gql.request(ViewerDocument, {}, token);
    const again = await server.gql.request(`query { blueprint(id: "${privateId}") { id viewerHasStarred owner { id } } }`, {}, token);
    expect(again.errors).toBeUndefined();
    expect(again.data).toEqual(
      (await server.gql.request(`query { blueprint(id: "${privateId}") { id viewerHasStarred owner { id } } }`, {}, await freshToken('owner'))).data,
    );
  });
});

/**
 * The REST registry lists (`viewerAfterRead` routes, afterViewer): the same rule as the GraphQL reads
 * above, over `GET /api/registry` and `GET /api/registry/trending`.
 */
describe('the token lookup carried by a REST registry read', () => {
  const statements = (r: { headers: Headers }) => Number(r.headers.get('x-sql-statements'));
  const get = (path: string) => (token: string) => server.rest.get(path, { token });
  const rest = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

  it.each<[string, string]>([
    ['the plain list by stars (page and count in one statement)', '/api/registry?sort=stars&limit=5'],
    ['the plain list by recent, past its first page', '/api/registry?sort=recent&limit=2&offset=2'],
    ['a keyword (relevance)', '/api/registry?q=carried&limit=5'],
    ['a keyword and a tag nothing has', '/api/registry?q=carried&tags=no-such-tag&sort=stars'],
    ['by trending', '/api/registry?sort=trending&limit=5'],
    ['the trending list', '/api/registry/trending?limit=3'],
  ])('%s: the same answer in one statement fewer', async (_name, path) => {
    const token = await freshToken('other');
    const first = await get(path)(token);
    const again = await get(path)(token);
    expect(first.status).toBe(200);
    expect(rest(again)).toEqual(rest(first));
    // The first request looks the token up on its own and, as the token was never used, stamps its last use.
    expect(statements(first)).toBe(statements(again) + 2);
  });

  it('a carried page answers its rows and its total', async () => {
    const token = await freshToken('other');
    await get('/api/registry?limit=1')(token);
    const again = await get('/api/registry?q=carried%20root&limit=20')(token);
    expect(again.status).toBe(200);
    expect(again.body.items.map((i: { id: string }) => i.id)).toContain(publicId);
    expect(again.body.total).toBeGreaterThanOrEqual(1);
  });

  it('bad arguments: the same 400, the token looked up on its own', async () => {
    const token = await freshToken('owner');
    const bad = get('/api/registry?sort=sideways');
    const first = await bad(token);
    const again = await bad(token);
    expect(first.status).toBe(400);
    expect(rest(again)).toEqual(rest(first));
  });

  it('a token revoked after the server saw it live is 401 at once, with the body a lookup first gives, even with bad arguments', async () => {
    const seen = await freshToken('owner', 'seen rest');
    expect((await get('/api/registry?limit=1')(seen)).status).toBe(200);
    const unseen = await freshToken('owner', 'unseen rest');
    await revoke('seen rest');
    await revoke('unseen rest');
    for (const path of ['/api/registry?limit=5', '/api/registry?q=carried', '/api/registry/trending', '/api/registry?sort=sideways']) {
      const refused = await get(path)(seen);
      expect(refused.status).toBe(401);
      expect(rest(refused)).toEqual(rest(await get(path)(unseen)));
      expect(refused.body.error?.code ?? refused.body.code).toBe('UNAUTHENTICATED');
    }
  });
});
