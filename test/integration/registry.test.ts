import { randomUUID } from 'node:crypto';
import { RegistryCardsDocument, RegistryDocument, TrendingDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let sql: SqlClient;
let owner: string;

const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString();

/** A principal made in SQL, for activity the API cannot date in the past. */
async function principal(): Promise<string> {
  const id = randomUUID();
  await sql.query("insert into principal (id, kind, name) values ($1, 'agent', 'fan')", [id]);
  return id;
}

/** `n` stars on `blueprintId` given `age` days ago, with the counter kept in step. */
async function oldStars(blueprintId: string, n: number, age: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await sql.query('insert into star (principal_id, blueprint_id, created_at) values ($1, $2, $3)', [await principal(), blueprintId, daysAgo(age)]);
  await sql.query('update blueprint set stars_count = stars_count + $1 where id = $2', [n, blueprintId]);
}

/** A successful run (its last step reached) by a new principal, `age` days ago. */
async function run(blueprintId: string, age: number): Promise<void> {
  await sql.query(
    `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, steps_reached, stage_token_hashes, started_at, ended_at)
     values ($1, $2, $3, 'completed', 3, 3, '{}', $4, $4)`,
    [randomUUID(), blueprintId, await principal(), daysAgo(age)],
  );
}

async function star(id: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await server.rest.post(`/api/blueprints/${id}/star`, { token: await server.rest.agentToken(`fan ${i}`) });
    expect(res.status).toBe(200);
  }
}

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  sql = await SqlClient.connect(server.databaseUrl);
  owner = await server.rest.agentToken('owner');
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

describe('GET /api/registry', () => {
  let invoice: any;
  let kit: any;
  let shop: any;
  let cli: any;
  let secret: any;

  beforeAll(async () => {
    // The better match (kit: "saas" in its name) is the older one, so rank and recency disagree.
    kit = await createBlueprint(server.rest, owner, { name: 'SaaS Starter Kit', description: 'Everything to launch', tags: ['saas', 'dashboard'] });
    invoice = await createBlueprint(server.rest, owner, { name: 'Invoice Hub', description: 'Billing and invoicing for saas teams', tags: ['saas', 'api'] });
    shop = await createBlueprint(server.rest, owner, { name: 'Shop Front', description: 'An e-commerce storefront', tags: ['e-commerce', 'dashboard'] });
    cli = await createBlueprint(server.rest, owner, { name: 'Todo CLI', description: 'A command line tool', tags: ['cli'] });
    secret = await createBlueprint(server.rest, owner, {
      name: 'Secret SaaS Plan',
      description: 'saas saas saas',
      tags: ['saas', 'api', 'dashboard'],
      visibility: 'private',
    });
    await star(shop.id, 2);
    await star(cli.id, 1);
    await sql.query('update blueprint set executions_completed = 3, executions_failed = 1 where id = $1', [cli.id]);
  });

  const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((i) => i.id);

  it('ranks full-text matches over name, tags and description: a name match before a description match', async () => {
    const res = await server.rest.get('/api/registry?q=saas', { token: reader });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([kit.id, invoice.id]);
    expect(res.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
  });

  it('matches word forms (stemming) and phrases the way people type them', async () => {
    expect(ids(await server.rest.get('/api/registry?q=invoices', { token: reader }))).toEqual([invoice.id]);
    expect(ids(await server.rest.get(`/api/registry?q=${encodeURIComponent('command line')}`, { token: reader }))).toEqual([cli.id]);
    expect(ids(await server.rest.get(`/api/registry?q=${encodeURIComponent('saas -billing')}`, { token: reader }))).toEqual([kit.id]);
  });

  it('answers any query text without error, even operators and quotes', async () => {
    for (const q of ['foo & | ! (', '"unclosed', "o'reilly:*", '\\\\', '   ']) {
      const res = await server.rest.get(`/api/registry?q=${encodeURIComponent(q)}`, { token: reader });
      expect(res.status).toBe(200);
    }
  });

  it('filters by tags, comma-separated, all of which must match, case-insensitively', async () => {
    expect(ids(await server.rest.get('/api/registry?tags=saas,api', { token: reader }))).toEqual([invoice.id]);
    expect(new Set(ids(await server.rest.get('/api/registry?tags=dashboard', { token: reader })))).toEqual(new Set([kit.id, shop.id]));
    expect(ids(await server.rest.get(`/api/registry?tags=${encodeURIComponent('SaaS, dashboard')}`, { token: reader }))).toEqual([kit.id]);
    expect(ids(await server.rest.get('/api/registry?tags=saas,cli', { token: reader }))).toEqual([]);
    expect(ids(await server.rest.get('/api/registry?q=storefront&tags=dashboard', { token: reader }))).toEqual([shop.id]);
    expect(ids(await server.rest.get('/api/registry?q=storefront&tags=saas', { token: reader }))).toEqual([]);
  });

  it('never lists a private blueprint, not even to its owner', async () => {
    for (const token of [reader, owner]) {
      for (const query of ['q=secret', 'tags=saas,api,dashboard', '', 'q=saas&limit=100']) {
        expect(ids(await server.rest.get(`/api/registry?${query}`, { token }))).not.toContain(secret.id);
      }
    }
  });

  it('shows cards with name, stars, module count, step count and success rate', async () => {
    const res = await server.rest.get('/api/registry?q=todo', { token: reader });
    expect(res.body.items).toEqual([
      expect.objectContaining({ id: cli.id, slug: cli.slug, name: 'Todo CLI', stars: 1, module_count: 3, step_count: 3, success_rate: 0.75, tags: ['cli'] }),
    ]);
  });

  it('sorts by mean review rating when asked: best first, unreviewed last, also in GraphQL', async () => {
    const review = async (id: string, rating: number) => {
      const critic = await server.rest.agentToken(`critic ${id} ${rating}`);
      expect((await server.rest.post(`/api/blueprints/${id}/reviews`, { token: critic, body: { rating, body: 'tried it' } })).status).toBe(201);
    };
    await review(invoice.id, 3);
    await review(cli.id, 5);
    await review(cli.id, 4);
    await review(kit.id, 2);
    const byRating = await server.rest.get('/api/registry?sort=rating', { token: reader });
    expect(ids(byRating)).toEqual([cli.id, invoice.id, kit.id, shop.id]);
    expect(byRating.body.items.map((i: { rating_average: number | null }) => i.rating_average)).toEqual([4.5, 3, 2, null]);
    const gql = await server.gql.request('{ registry(sort: RATING, first: 10) { edges { node { id ratingAverage } } } }', undefined, reader);
    expect(gql.errors).toBeUndefined();
    expect((gql.data as any).registry.edges.map((e: any) => e.node.id)).toEqual([cli.id, invoice.id, kit.id, shop.id]);
  });

  it('sorts by stars by default, and by recent or trending when asked', async () => {
    const all = ids(await server.rest.get('/api/registry', { token: reader }));
    expect(all.slice(0, 2)).toEqual([shop.id, cli.id]);
    expect(all).toHaveLength(4);
    expect(ids(await server.rest.get('/api/registry?sort=stars', { token: reader })).slice(0, 2)).toEqual([shop.id, cli.id]);
    expect(ids(await server.rest.get('/api/registry?sort=recent', { token: reader }))).toEqual([cli.id, shop.id, invoice.id, kit.id]);
    // Trending counts recent activity only: kit gets more (but old) stars than shop; shop stays ahead.
    await oldStars(kit.id, 5, 30);
    expect(ids(await server.rest.get('/api/registry?sort=stars', { token: reader }))[0]).toBe(kit.id);
    const trending = ids(await server.rest.get('/api/registry?sort=trending', { token: reader }));
    expect(trending.slice(0, 2)).toEqual([shop.id, cli.id]);
    expect(ids(await server.rest.get('/api/registry?q=saas&sort=recent', { token: reader }))).toEqual([invoice.id, kit.id]);
  });

  it('pages with limit and offset and reports the total', async () => {
    const page1 = await server.rest.get('/api/registry?sort=recent&limit=3', { token: reader });
    const page2 = await server.rest.get('/api/registry?sort=recent&limit=3&offset=3', { token: reader });
    expect(page1.body).toMatchObject({ total: 4, limit: 3, offset: 0 });
    expect(page2.body).toMatchObject({ total: 4, limit: 3, offset: 3 });
    expect([...ids(page1), ...ids(page2)]).toEqual([cli.id, shop.id, invoice.id, kit.id]);
    const past = await server.rest.get('/api/registry?offset=50', { token: reader });
    expect(past.body).toMatchObject({ items: [], total: 4, offset: 50 });
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['sort=popular', 'sort'],
    ['q of 201 characters', 'q'],
  ])('rejects %s with 400 VALIDATION_FAILED naming %s, writing nothing', async (label, path) => {
    const query = label === 'q of 201 characters' ? `q=${'a'.repeat(201)}` : label;
    const before = await sql.snapshot();
    const res = await server.rest.get(`/api/registry?${query}`, { token: reader });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe(path);
    expect(await sql.snapshot()).toEqual(before);
  });

  it('answers the same search through GraphQL registry(q, tags, first, after) with totalCount', async () => {
    const data = await server.gql.ok(RegistryDocument, { q: 'saas' }, reader);
    expect(data.registry.totalCount).toBe(2);
    expect(data.registry.edges.map((e) => e.node.id)).toEqual([kit.id, invoice.id]);
    const tagged = await server.gql.ok(RegistryDocument, { tags: ['saas', 'API'] }, reader);
    expect(tagged.registry.edges.map((e) => e.node.id)).toEqual([invoice.id]);
    const first = await server.gql.ok(RegistryCardsDocument, { sort: 'RECENT', first: 2 }, reader);
    const next = await server.gql.ok(RegistryCardsDocument, { sort: 'RECENT', first: 2, after: first.registry.edges[1]!.cursor }, reader);
    expect([...first.registry.edges, ...next.registry.edges].map((e) => e.node.id)).toEqual([cli.id, shop.id, invoice.id, kit.id]);
    expect(next.registry.totalCount).toBe(4);
    const card = (await server.gql.ok(RegistryDocument, { q: 'todo' }, reader)).registry.edges[0]!.node;
    expect(card).toMatchObject({ name: 'Todo CLI', stars: 1, moduleCount: 3, stepCount: 3, successRate: 0.75 });
  });

  it.each([
    ['first over 100', { first: 101 }],
    ['first of 0', { first: 0 }],
    ['a cursor it did not issue', { after: 'garbage' }],
    ['an over-long q', { q: 'q'.repeat(201) }],
  ])('rejects GraphQL registry with %s as VALIDATION_FAILED', async (_name, vars) => {
    const res = await server.gql.request(RegistryDocument, vars, reader);
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /api/registry/trending', () => {
  let forked: any; // 1 fork now: 3 points
  let starred: any; // 2 stars now: 2 points
  let executed: any; // 1 successful run now (and 1 long ago): 5 points
  let stale: any; // 5 stars 30 days ago: nothing this week
  let oldFork: any; // 1 fork 30 days ago: nothing this week
  let hidden: any; // private, much activity: never listed

  beforeAll(async () => {
    const mk = (name: string, visibility: 'public' | 'private' = 'public') => createBlueprint(server.rest, owner, { name, visibility });
    [forked, starred, executed, stale, oldFork, hidden] = [
      await mk('Forked'),
      await mk('Starred'),
      await mk('Executed'),
      await mk('Stale'),
      await mk('Old Fork'),
      await mk('Hidden', 'private'),
    ];
    await fork(server.rest, await server.rest.agentToken('forker'), forked.id);
    await star(starred.id, 2);
    await run(executed.id, 0);
    await run(executed.id, 20);
    await oldStars(stale.id, 5, 30);
    const f = await fork(server.rest, await server.rest.agentToken('old forker'), oldFork.id);
    await sql.query('update blueprint set created_at = $1 where id = $2', [daysAgo(30), f.id]);
    await sql.query('update blueprint set stars_count = 10 where id = $1', [hidden.id]);
    for (let i = 0; i < 3; i++) await run(hidden.id, 0);
    await oldStars(hidden.id, 3, 0);
  });

  const entry = (res: any, id: string) => res.body.items.find((i: any) => i.id === id);
  const order = (res: any, among: string[]) => res.body.items.map((i: any) => i.id).filter((id: string) => among.includes(id));

  it('ranks by successful runs, forks and stars inside the window, as cards with score and activity', async () => {
    const res = await server.rest.get('/api/registry/trending?window_days=7', { token: reader });
    expect(res.status).toBe(200);
    expect(res.body.window_days).toBe(7);
    expect(order(res, [forked.id, starred.id, executed.id])).toEqual([executed.id, forked.id, starred.id]);
    expect(entry(res, forked.id)).toMatchObject({
      name: 'Forked',
      stars: 0,
      module_count: 3,
      step_count: 3,
      success_rate: null,
      score: 3,
      activity: { stars: 0, forks: 1, executions: 0 },
    });
    expect(entry(res, starred.id)).toMatchObject({ score: 2, activity: { stars: 2, forks: 0, executions: 0 } });
    expect(entry(res, executed.id)).toMatchObject({ score: 5, activity: { stars: 0, forks: 0, executions: 1 } });
  });

  it('does not count activity older than the window', async () => {
    const week = await server.rest.get('/api/registry/trending?window_days=7&limit=100', { token: reader });
    expect(entry(week, stale.id)).toBeUndefined();
    expect(entry(week, oldFork.id)).toBeUndefined();
    const twoMonths = await server.rest.get('/api/registry/trending?window_days=60&limit=100', { token: reader });
    expect(entry(twoMonths, stale.id)).toMatchObject({ score: 5, activity: { stars: 5, forks: 0, executions: 0 } });
    expect(entry(twoMonths, oldFork.id)).toMatchObject({ activity: { forks: 1 } });
    expect(entry(twoMonths, executed.id)).toMatchObject({ activity: { executions: 2 } });
    expect(order(twoMonths, [stale.id, forked.id])).toEqual([stale.id, forked.id]);
  });

  it('defaults to a 7-day window and stops counting a star once it is withdrawn', async () => {
    const fan = await server.rest.agentToken('fickle fan');
    const target = await createBlueprint(server.rest, owner, { name: 'Fickle' });
    await server.rest.post(`/api/blueprints/${target.id}/star`, { token: fan });
    const withStar = await server.rest.get('/api/registry/trending?limit=100', { token: reader });
    expect(withStar.body.window_days).toBe(7);
    expect(entry(withStar, target.id)).toMatchObject({ activity: { stars: 1 } });
    await server.rest.delete(`/api/blueprints/${target.id}/star`, { token: fan });
    expect(entry(await server.rest.get('/api/registry/trending?limit=100', { token: reader }), target.id)).toBeUndefined();
  });

  it('never lists a private blueprint', async () => {
    for (const token of [reader, owner]) {
      const res = await server.rest.get('/api/registry/trending?limit=100&window_days=365', { token });
      expect(entry(res, hidden.id)).toBeUndefined();
    }
  });

  it('honours limit', async () => {
    const res = await server.rest.get('/api/registry/trending?limit=2', { token: reader });
    expect(res.body.items).toHaveLength(2);
  });

  it.each([
    ['window_days=0', 'window_days'],
    ['window_days=366', 'window_days'],
    ['window_days=-1', 'window_days'],
    ['window_days=1.5', 'window_days'],
    ['window_days=week', 'window_days'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=x', 'limit'],
  ])('rejects %s with 400 VALIDATION_FAILED naming %s, writing nothing', async (query, path) => {
    const before = await sql.snapshot();
    const res = await server.rest.get(`/api/registry/trending?${query}`, { token: reader });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe(path);
    expect(await sql.snapshot()).toEqual(before);
  });

  it('answers GraphQL trending(limit, windowDays) the same way', async () => {
    const data = await server.gql.ok(TrendingDocument, { windowDays: 7, limit: 100 }, reader);
    const ids = data.trending.map((t) => t.blueprint.id);
    expect(ids.filter((id) => [forked.id, starred.id, executed.id].includes(id))).toEqual([executed.id, forked.id, starred.id]);
    expect(ids).not.toContain(stale.id);
    expect(ids).not.toContain(hidden.id);
    expect(data.trending.find((t) => t.blueprint.id === forked.id)).toMatchObject({ score: 3, activity: { stars: 0, forks: 1, executions: 0 } });
    const wide = await server.gql.ok(TrendingDocument, { windowDays: 60, limit: 100 }, reader);
    expect(wide.trending.map((t) => t.blueprint.id)).toContain(stale.id);
  });

  it.each([
    [{ windowDays: 0 }, 'windowDays'],
    [{ windowDays: 366 }, 'windowDays'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 0 }, 'limit'],
  ])('rejects GraphQL trending %j as VALIDATION_FAILED naming %s', async (vars, path) => {
    const res = await server.gql.request(TrendingDocument, vars, reader);
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(res.errors?.[0]?.extensions?.details?.issues?.[0]?.path).toBe(path);
  });
});
