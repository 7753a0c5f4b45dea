import { randomUUID } from 'node:crypto';
import {
  BlueprintByIdDocument,
  BlueprintBySlugDocument,
  BlueprintStarStateDocument,
  BlueprintTeamDocument,
  NodeByIdDocument,
  StarBlueprintDocument,
  UnstarBlueprintDocument,
} from '../generated/graphql';
import { createBlueprint, defaultModules, defaultSteps } from '../fixtures/blueprints';
import type { AgentSession } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let sql: SqlClient;

type Agent = AgentSession;
const agent = (name: string): Promise<Agent> => server.rest.agentSession(name);

/** Puts `blueprintId` in a new team with `members` ({principal id: role}); teams have no API in this area. */
async function shareWithTeam(blueprintId: string, members: Record<string, string>): Promise<string> {
  const teamId = randomUUID();
  await sql.query(`insert into team (id, name) values ($1, $2)`, [teamId, `Team ${teamId.slice(0, 4)}`]);
  for (const [principalId, role] of Object.entries(members))
    await sql.query('insert into team_member (team_id, principal_id, role) values ($1, $2, $3)', [teamId, principalId, role]);
  await sql.query('update blueprint set team_id = $1 where id = $2', [teamId, blueprintId]);
  return teamId;
}

let owner: Agent;
let stranger: Agent;
let publicBp: any;
let privateBp: any;

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  sql = await SqlClient.connect(server.databaseUrl);
  owner = await agent('owner');
  stranger = await agent('stranger');
  publicBp = await createBlueprint(server.rest, owner.token, { name: 'Public Shop', description: 'A web shop', tags: ['e-commerce', 'saas'] });
  privateBp = await createBlueprint(server.rest, owner.token, { name: 'Private Notes', visibility: 'private' });
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

describe('GET /api/blueprints/:id', () => {
  it('answers the documented blueprint body by id', async () => {
    const res = await server.rest.get(`/api/blueprints/${publicBp.id}`, { token: reader });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'slug',
        'name',
        'description',
        'tags',
        'visibility',
        'owner_id',
        'team_id',
        'forked_from',
        'modules',
        'steps',
        'configuration',
        'design_system',
        'stars',
        'forks_count',
        'module_count',
        'step_count',
        'success_rate',
        'review_count',
        'rating_average',
        'created_at',
        'updated_at',
        'version',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      id: publicBp.id,
      slug: 'public-shop',
      name: 'Public Shop',
      description: 'A web shop',
      tags: ['e-commerce', 'saas'],
      visibility: 'public',
      owner_id: owner.id,
      team_id: null,
      forked_from: null,
      stars: 0,
      forks_count: 0,
      module_count: defaultModules.length,
      step_count: defaultSteps.length,
      success_rate: null,
    });
    expect(res.body.modules.map((m: any) => m.key)).toEqual(defaultModules.map((m) => m.key));
    expect(res.body.modules[0].depends_on).toEqual(['db']);
    expect(res.body.steps[0]).toMatchObject({ key: 'schema', module_key: 'db' });
  });

  it('answers the same blueprint by slug and by an upper-case id', async () => {
    const bySlug = await server.rest.get('/api/blueprints/public-shop', { token: reader });
    const byUpper = await server.rest.get(`/api/blueprints/${publicBp.id.toUpperCase()}`, { token: reader });
    expect(bySlug.status).toBe(200);
    expect(byUpper.status).toBe(200);
    expect(bySlug.body.id).toBe(publicBp.id);
    expect(byUpper.body.id).toBe(publicBp.id);
  });

  it('shows a private blueprint to its owner only: 404 to others, 401 to anonymous callers, by id and by slug', async () => {
    expect((await server.rest.get(`/api/blueprints/${privateBp.id}`, { token: owner.token })).status).toBe(200);
    for (const key of [privateBp.id, privateBp.slug]) {
      const res = await server.rest.get(`/api/blueprints/${key}`, { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect((await server.rest.get(`/api/blueprints/${key}`)).status).toBe(401);
    }
  });

  it('answers 404 for an unknown id and an unknown slug, and 401 for an unknown token', async () => {
    expect((await server.rest.get(`/api/blueprints/${randomUUID()}`, { token: reader })).body.error.code).toBe('NOT_FOUND');
    expect((await server.rest.get('/api/blueprints/no-such-slug', { token: reader })).status).toBe(404);
    const res = await server.rest.get(`/api/blueprints/${publicBp.id}`, { token: 'bwa_not-a-real-token' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('rejects an over-long id and a malformed URL escape with 400 in the documented error shape', async () => {
    for (const path of [`/api/blueprints/${'x'.repeat(101)}`, `/api/blueprints/${'x'.repeat(5000)}/star`, '/api/blueprints/%E0%A4%A']) {
      const res = await server.rest.get(path, { token: reader });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.any(String) } });
    }
  });

  it('lets team members read a private team blueprint, and no one else', async () => {
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Team Plan', visibility: 'private' });
    const member = await agent('team viewer');
    await shareWithTeam(bp.id, { [member.id]: 'viewer' });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: member.token })).status).toBe(200);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('GraphQL blueprint, team and node', () => {
  it('reads a blueprint by id and by slug, and null for a private one the caller may not see', async () => {
    const data = await server.gql.ok(BlueprintByIdDocument, { id: publicBp.id }, reader);
    expect(data.blueprint).toMatchObject({
      id: publicBp.id,
      name: 'Public Shop',
      stars: 0,
      moduleCount: 3,
      stepCount: 3,
      successRate: null,
      viewerHasStarred: false,
    });
    expect((await server.gql.ok(BlueprintBySlugDocument, { slug: 'public-shop' }, reader)).blueprint?.id).toBe(publicBp.id);
    expect((await server.gql.ok(BlueprintByIdDocument, { id: privateBp.id }, stranger.token)).blueprint).toBeNull();
    expect((await server.gql.ok(BlueprintByIdDocument, { id: privateBp.id }, owner.token)).blueprint?.id).toBe(privateBp.id);
  });

  it('rejects blueprint() with neither or both of id and slug', async () => {
    for (const query of ['{ blueprint { id } }', `{ blueprint(id: "${publicBp.id}", slug: "public-shop") { id } }`]) {
      const res = await server.gql.request(query, {}, reader);
      expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
  });

  it('gives Blueprint.team: null without a team, the team when shared to its members only', async () => {
    expect((await server.gql.ok(BlueprintTeamDocument, { id: publicBp.id }, reader)).blueprint?.team).toBeNull();
    const bp = await createBlueprint(server.rest, owner.token, { name: 'Shared Plan' });
    const teamId = await shareWithTeam(bp.id, { [owner.id]: 'owner' });
    const team = (await server.gql.ok(BlueprintTeamDocument, { id: bp.id }, owner.token)).blueprint?.team;
    expect(team).toEqual({ id: teamId, name: `Team ${teamId.slice(0, 4)}` });
    // A team shows members, audit log and analytics: a public team blueprint does not open it to others.
    expect((await server.gql.ok(BlueprintTeamDocument, { id: bp.id }, stranger.token)).blueprint?.team).toBeNull();
    expect((await server.gql.ok(BlueprintTeamDocument, { id: bp.id }, reader)).blueprint?.team).toBeNull();
  });

  it('loads the teams of many blueprints in one statement', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const bp = await createBlueprint(server.rest, owner.token, { name: `Team batch ${i}` });
      await shareWithTeam(bp.id, { [owner.id]: 'member' });
      ids.push(bp.id);
    }
    const query = (n: number) =>
      `{ ${ids
        .slice(0, n)
        .map((id, i) => `b${i}: blueprint(id: "${id}") { team { id } }`)
        .join(' ')} }`;
    const one = await server.gql.request(query(1), undefined, owner.token);
    const four = await server.gql.request(query(4), undefined, owner.token);
    expect(four.errors).toBeUndefined();
    expect(Object.values(four.data as Record<string, any>).every((b) => b.team.id)).toBe(true);
    expect(four.sqlStatements).toBe(one.sqlStatements);
  });

  it('fetches a blueprint as a Node by its id', async () => {
    const { node } = await server.gql.ok(NodeByIdDocument, { id: publicBp.id }, reader);
    expect(node).toEqual({ __typename: 'Blueprint', id: publicBp.id, slug: 'public-shop', name: 'Public Shop', stars: expect.any(Number) });
  });

  it('answers node() with null for an unknown id, a non-UUID id and a private blueprint the caller may not see', async () => {
    expect((await server.gql.ok(NodeByIdDocument, { id: randomUUID() }, reader)).node).toBeNull();
    expect((await server.gql.ok(NodeByIdDocument, { id: 'public-shop' }, reader)).node).toBeNull();
    expect((await server.gql.ok(NodeByIdDocument, { id: privateBp.id }, stranger.token)).node).toBeNull();
    expect((await server.gql.ok(NodeByIdDocument, { id: privateBp.id }, reader)).node).toBeNull();
    expect((await server.gql.ok(NodeByIdDocument, { id: privateBp.id }, owner.token)).node?.id).toBe(privateBp.id);
  });
});

describe('stars', () => {
  let bp: any;
  beforeAll(async () => {
    bp = await createBlueprint(server.rest, owner.token, { name: 'Star Target' });
  });

  const starRows = async (id: string) => Number((await sql.query('select count(*) as n from star where blueprint_id = $1', [id]))[0]!.n);

  it('stars, counts, and is idempotent: starring twice or unstarring twice changes nothing more', async () => {
    const a = await agent('fan a');
    const b = await agent('fan b');
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: a.token })).body).toEqual({ blueprint_id: bp.id, starred: true, stars: 1 });
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: a.token })).body).toEqual({ blueprint_id: bp.id, starred: true, stars: 1 });
    expect((await server.rest.post(`/api/blueprints/${bp.slug}/star`, { token: b.token })).body.stars).toBe(2);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: reader })).body.stars).toBe(2);
    expect(await starRows(bp.id)).toBe(2);

    const del = await server.rest.delete(`/api/blueprints/${bp.id}/star`, { token: a.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ blueprint_id: bp.id, starred: false, stars: 1 });
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/star`, { token: a.token })).body.stars).toBe(1);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: reader })).body.stars).toBe(1);
    expect(await starRows(bp.id)).toBe(1);
  });

  it('reports viewerHasStarred per caller: true for a fan, false for others and for anonymous callers', async () => {
    const fan = await agent('fan');
    await server.gql.ok(StarBlueprintDocument, { id: bp.id }, fan.token);
    expect((await server.gql.ok(BlueprintStarStateDocument, { id: bp.id }, fan.token)).blueprint?.viewerHasStarred).toBe(true);
    expect((await server.gql.ok(BlueprintStarStateDocument, { id: bp.id }, stranger.token)).blueprint?.viewerHasStarred).toBe(false);
    expect((await server.gql.ok(BlueprintStarStateDocument, { id: bp.id }, reader)).blueprint?.viewerHasStarred).toBe(false);
    const after = await server.gql.ok(UnstarBlueprintDocument, { id: bp.id }, fan.token);
    expect(after.unstarBlueprint.viewerHasStarred).toBe(false);
  });

  it('answers the GraphQL star mutations with the new count and viewerHasStarred', async () => {
    const target = await createBlueprint(server.rest, owner.token, { name: 'GraphQL star' });
    const fan = await agent('gql fan');
    const starred = await server.gql.ok(StarBlueprintDocument, { id: target.id }, fan.token);
    expect(starred.starBlueprint).toEqual({ id: target.id, stars: 1, viewerHasStarred: true });
    const again = await server.gql.ok(StarBlueprintDocument, { id: target.id }, fan.token);
    expect(again.starBlueprint.stars).toBe(1);
    const unstarred = await server.gql.ok(UnstarBlueprintDocument, { id: target.id }, fan.token);
    expect(unstarred.unstarBlueprint).toEqual({ id: target.id, stars: 0, viewerHasStarred: false });
  });

  it('counts concurrent stars exactly: ten callers at once make ten, one caller ten times makes one', async () => {
    const target = await createBlueprint(server.rest, owner.token, { name: 'Concurrent stars' });
    const fans = await Promise.all(Array.from({ length: 10 }, (_, i) => agent(`crowd ${i}`)));
    await Promise.all(fans.map((f) => server.rest.post(`/api/blueprints/${target.id}/star`, { token: f.token })));
    expect((await server.rest.get(`/api/blueprints/${target.id}`, { token: reader })).body.stars).toBe(10);
    const single = await createBlueprint(server.rest, owner.token, { name: 'Repeated stars' });
    const res = await Promise.all(Array.from({ length: 10 }, () => server.rest.post(`/api/blueprints/${single.id}/star`, { token: fans[0]!.token })));
    expect(res.every((r) => r.status === 200)).toBe(true);
    expect((await server.rest.get(`/api/blueprints/${single.id}`, { token: reader })).body.stars).toBe(1);
    expect(await starRows(single.id)).toBe(1);
  });

  it('lets the owner star their own private blueprint', async () => {
    const mine = await createBlueprint(server.rest, owner.token, { name: 'Own private star', visibility: 'private' });
    expect((await server.rest.post(`/api/blueprints/${mine.id}/star`, { token: owner.token })).body.stars).toBe(1);
  });

  it('rejects an anonymous star or unstar with 401 and writes nothing', async () => {
    const before = await sql.snapshot();
    for (const method of ['post', 'delete'] as const) {
      const res = await server.rest[method](`/api/blueprints/${bp.id}/star`);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    const gql = await server.gql.request(StarBlueprintDocument, { id: bp.id });
    expect(gql.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await sql.snapshot()).toEqual(before);
  });

  it('answers 404 for a star on a foreign private blueprint or an unknown id, and writes nothing', async () => {
    const before = await sql.snapshot();
    for (const id of [privateBp.id, privateBp.slug, randomUUID()]) {
      for (const method of ['post', 'delete'] as const) {
        const res = await server.rest[method](`/api/blueprints/${id}/star`, { token: stranger.token });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    const gql = await server.gql.request(StarBlueprintDocument, { id: privateBp.id }, stranger.token);
    expect(gql.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await sql.snapshot()).toEqual(before);
  });
});
