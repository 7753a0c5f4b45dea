import { BlueprintChangelogDocument, PublishChangelogEntryDocument, RegistryChangelogsDocument, UpdateChangelogEntryDocument } from '../generated/graphql';
import { createBlueprint } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let owner: string;
let other: string;
let publicBp: any;
let privateBp: any;

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  owner = await server.rest.agentToken('owner');
  other = await server.rest.agentToken('other');
  publicBp = await createBlueprint(server.rest, owner, { name: 'Changelog public' });
  privateBp = await createBlueprint(server.rest, owner, { name: 'Changelog private', visibility: 'private' });
});
afterAll(() => server.close());

const entryCount = async (blueprintId: string) =>
  Number((await sql<{ n: string }>(server, 'select count(*) as n from changelog_entry where blueprint_id = ?', [blueprintId]))[0]!.n);

describe('publishing', () => {
  it('lets the owner publish an entry and answers 201 with the documented body', async () => {
    const res = await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner, body: { title: '  v2 ships  ', body: 'New API module' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['body', 'created_at', 'id', 'title', 'updated_at']);
    expect(res.body).toMatchObject({ title: 'v2 ships', body: 'New API module' });
    expect(res.body.created_at).toBe(res.body.updated_at);
  });

  it('answers 401 to anonymous callers, 403 to other principals and 404 for a private blueprint they cannot see, writing nothing', async () => {
    const before = await entryCount(publicBp.id);
    const body = { title: 't', body: 'b' };
    expect((await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { body })).status).toBe(401);
    const forbidden = await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: other, body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const hidden = await server.rest.post(`/api/blueprints/${privateBp.id}/changelog`, { token: other, body });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    expect(await entryCount(publicBp.id)).toBe(before);
    expect(await entryCount(privateBp.id)).toBe(0);
  });

  it.each([
    ['a missing title', { body: 'no title' }, 'title'],
    ['a blank title', { title: '   ', body: 'x' }, 'title'],
    ['a missing body', { title: 'x' }, 'body'],
    ['a title that is not a string', { title: 42, body: 'x' }, 'title'],
    ['an unknown field', { title: 'x', body: 'y', extra: 1 }, 'extra'],
    ['a title over 200 characters', { title: 'x'.repeat(201), body: 'y' }, 'title'],
  ])('rejects %s with 400 naming the path and writes nothing', async (_label, body, path) => {
    const before = await entryCount(publicBp.id);
    const res = await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe(path);
    expect(await entryCount(publicBp.id)).toBe(before);
  });

  it('rejects a missing or non-object body with 400', async () => {
    expect((await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner })).status).toBe(400);
    expect((await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner, body: ['x'] })).status).toBe(400);
  });
});

describe('reading', () => {
  it('lists entries newest first without a token, paged with limit and offset', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Paged changelog' });
    for (const n of [1, 2, 3]) await server.rest.post(`/api/blueprints/${bp.id}/changelog`, { token: owner, body: { title: `entry ${n}`, body: '' } });
    const all = await server.rest.get(`/api/blueprints/${bp.id}/changelog`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((e: any) => e.title)).toEqual(['entry 3', 'entry 2', 'entry 1']);
    expect(all.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    const page = await server.rest.get(`/api/blueprints/${bp.id}/changelog?limit=1&offset=1`);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.items.map((e: any) => e.title)).toEqual(['entry 2']);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/changelog?limit=0`)).status).toBe(400);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/changelog?limit=101`)).status).toBe(400);
  });

  it("hides a private blueprint's changelog from others (404) and shows it to the owner", async () => {
    await server.rest.post(`/api/blueprints/${privateBp.id}/changelog`, { token: owner, body: { title: 'secret', body: '' } });
    expect((await server.rest.get(`/api/blueprints/${privateBp.id}/changelog`)).status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${privateBp.id}/changelog`, { token: other })).status).toBe(404);
    const mine = await server.rest.get(`/api/blueprints/${privateBp.id}/changelog`, { token: owner });
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((e: any) => e.title)).toContain('secret');
  });

  it('reads the changelogs of many blueprints in one statement (the count does not grow with breadth)', async () => {
    // The reader's first use stamps its token's last use (a statement of its own, docs/accounts.md): not counted here.
    await server.gql.request(RegistryChangelogsDocument, { first: 1 }, reader);
    const narrow = await server.gql.request(RegistryChangelogsDocument, { first: 5 }, reader);
    expect(narrow.errors).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const bp = await createBlueprint(server.rest, owner, { name: `Wide changelog ${i}` });
      await server.rest.post(`/api/blueprints/${bp.id}/changelog`, { token: owner, body: { title: `w${i}`, body: '' } });
    }
    const wide = await server.gql.request(RegistryChangelogsDocument, { first: 5 }, reader);
    expect(wide.errors).toBeUndefined();
    expect(wide.data!.registry.edges.length).toBeGreaterThan(narrow.data!.registry.edges.length);
    expect(wide.sqlStatements).toBe(narrow.sqlStatements);
  });
});

describe('editing', () => {
  it('lets the owner change the title or the body, keeping created_at and moving updated_at', async () => {
    const created = (await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner, body: { title: 'draft', body: 'first' } })).body;
    const res = await server.rest.patch(`/api/blueprints/${publicBp.id}/changelog/${created.id}`, { token: owner, body: { body: 'second' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, title: 'draft', body: 'second', created_at: created.created_at });
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.updated_at).getTime());
  });

  it('answers 401/403/404 to others and 404 for an entry of another blueprint, changing nothing', async () => {
    const entry = (await server.rest.post(`/api/blueprints/${publicBp.id}/changelog`, { token: owner, body: { title: 'keep', body: 'me' } })).body;
    const path = `/api/blueprints/${publicBp.id}/changelog/${entry.id}`;
    expect((await server.rest.patch(path, { body: { title: 'x' } })).status).toBe(401);
    expect((await server.rest.patch(path, { token: other, body: { title: 'x' } })).status).toBe(403);
    expect((await server.rest.patch(`/api/blueprints/${privateBp.id}/changelog/${entry.id}`, { token: other, body: { title: 'x' } })).status).toBe(404);
    expect((await server.rest.patch(`/api/blueprints/${privateBp.id}/changelog/${entry.id}`, { token: owner, body: { title: 'x' } })).status).toBe(404);
    expect((await server.rest.patch(`/api/blueprints/${publicBp.id}/changelog/not-a-uuid`, { token: owner, body: { title: 'x' } })).status).toBe(404);
    expect((await server.rest.patch(path, { token: owner, body: {} })).status).toBe(400);
    const [row] = await sql<{ title: string }>(server, 'select title from changelog_entry where id = ?', [entry.id]);
    expect(row!.title).toBe('keep');
  });
});

describe('GraphQL', () => {
  it('publishes, updates and pages through the changelog connection', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'GraphQL changelog' });
    const first = await server.gql.ok(PublishChangelogEntryDocument, { blueprintId: bp.id, title: 'one', body: 'b1' }, owner);
    await server.gql.ok(PublishChangelogEntryDocument, { blueprintId: bp.id, title: 'two', body: 'b2' }, owner);
    const updated = await server.gql.ok(UpdateChangelogEntryDocument, { id: first.publishChangelogEntry.id, title: 'one (fixed)' }, owner);
    expect(updated.updateChangelogEntry).toMatchObject({ title: 'one (fixed)', body: 'b1' });
    const page1 = await server.gql.ok(BlueprintChangelogDocument, { id: bp.id, first: 1 }, reader);
    expect(page1.blueprint!.changelog.totalCount).toBe(2);
    expect(page1.blueprint!.changelog.edges.map((e) => e.node.title)).toEqual(['two']);
    const page2 = await server.gql.ok(BlueprintChangelogDocument, { id: bp.id, first: 1, after: page1.blueprint!.changelog.pageInfo.endCursor }, reader);
    expect(page2.blueprint!.changelog.edges.map((e) => e.node.title)).toEqual(['one (fixed)']);
    expect(page2.blueprint!.changelog.pageInfo.hasNextPage).toBe(false);
  });

  it('uses the same error codes as REST', async () => {
    const anon = await server.gql.request(PublishChangelogEntryDocument, { blueprintId: publicBp.id, title: 't', body: 'b' });
    expect(anon.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const notOwner = await server.gql.request(PublishChangelogEntryDocument, { blueprintId: publicBp.id, title: 't', body: 'b' }, other);
    expect(notOwner.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const hidden = await server.gql.request(PublishChangelogEntryDocument, { blueprintId: privateBp.id, title: 't', body: 'b' }, other);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const entry = await server.gql.ok(PublishChangelogEntryDocument, { blueprintId: privateBp.id, title: 'p', body: '' }, owner);
    const editHidden = await server.gql.request(UpdateChangelogEntryDocument, { id: entry.publishChangelogEntry.id, title: 'x' }, other);
    expect(editHidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const empty = await server.gql.request(UpdateChangelogEntryDocument, { id: entry.publishChangelogEntry.id }, owner);
    expect(empty.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});
