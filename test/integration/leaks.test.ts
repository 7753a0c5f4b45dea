import { createArchitecture, createTeam, principalIdOf, sql } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { runTool } from '../fixtures/tool-driver';
import { mcpCall } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';
import { liveMark } from '../helpers/live';

/**
 * The rule: an event, an error message or a nested field names only what its receiver may read. Each of
 * the three leaks a probe found has its own test; the last test sweeps every read of the same fixtures over
 * REST, GraphQL, MCP and WebSocket and looks for the private ids anywhere in any answer.
 */
let server: TestServer;
let owner: string;
let stranger: string;
const sockets: WsClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('owner');
  stranger = await server.rest.agentToken('stranger');
});
afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

function ws(token?: string): WsClient {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client;
}

/** A new blueprint made from `sourceId` by the `mutate` tool (a one-source NEW tool: lineage kind fork). */
async function derive(token: string, sourceId: string, visibility: 'public' | 'private'): Promise<string> {
  const done = await runTool(server.rest, token, { tool_type: 'mutate', source_blueprint_ids: [sourceId], params: { seed: 7 } }, [{ visibility }]);
  return done.result.blueprint_ids[0] as string;
}

const ACTIVITY = `subscription A($id: ID!) { blueprintActivity(id: $id) { kind blueprintId subjectId fork { id slug } actor { id } } }`;

describe('a live blueprintActivity event', () => {
  it('does not name a private blueprint derived from a public one to whoever may not read it', async () => {
    const source = await createBlueprint(server.rest, owner, { name: 'Public source' });
    const mark = liveMark(server);
    const strangerSub = ws(stranger).subscribe<any, any>(ACTIVITY, { id: source.id });
    const anonymousSub = ws().subscribe<any, any>(ACTIVITY, { id: source.id });
    const ownerSub = ws(owner).subscribe<any, any>(ACTIVITY, { id: source.id });
    await mark.streaming(2); // the anonymous one is refused
    const secret = await derive(owner, source.id, 'private');

    const event = await strangerSub.next();
    expect(event.errors).toBeUndefined();
    expect(event.data.blueprintActivity).toMatchObject({ kind: 'FORKED', blueprintId: source.id, subjectId: null, fork: null });
    expect(JSON.stringify(event)).not.toContain(secret);
    // Anonymous callers may not subscribe at all (the public rule): refused before any event, so nothing leaks.
    const refused = await anonymousSub.next();
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(refused)).not.toContain(secret);
    // The owner may read the derived blueprint, so the same event names it to them: the redaction is per receiver.
    const own = await ownerSub.next();
    expect(own.data!.blueprintActivity).toMatchObject({ kind: 'FORKED', subjectId: secret, fork: { id: secret } });
  });
});

describe('compare', () => {
  it("answers 404 for a public blueprint made from a private one without naming the private parent's id", async () => {
    const secretParent = await createBlueprint(server.rest, owner, { name: 'Secret parent', visibility: 'private' });
    const publicChild = await derive(owner, secretParent.id, 'public');
    const rest = await server.rest.get(`/api/blueprints/${publicChild}/compare`, { token: stranger });
    expect(rest.status).toBe(404);
    expect(rest.body.error.code).toBe('NOT_FOUND');
    expect(JSON.stringify(rest.body)).not.toContain(secretParent.id);
    expect(JSON.stringify(rest.body)).not.toContain(secretParent.slug);
    const gql = await server.gql.request(`query C($id: ID!) { compareWithParent(id: $id) { status } }`, { id: publicChild }, stranger);
    expect(gql.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(gql)).not.toContain(secretParent.id);
    // The owner sees the comparison (the 404 is about sight, not about the data).
    expect((await server.rest.get(`/api/blueprints/${publicChild}/compare`, { token: owner })).status).toBe(200);
  });
});

describe('Blueprint.team', () => {
  it("shows a public team blueprint's team (members, conventions) to team members only", async () => {
    const member = await server.rest.agentToken('member');
    const team = await createTeam(server.rest, owner, [[await principalIdOf(server.gql, member), 'viewer']], 'Secret team');
    const bp = await createBlueprint(server.rest, owner, { name: 'Team public' });
    await sql(server.databaseUrl, 'update blueprint set team_id = $1 where id = $2', [team.id, bp.id]);
    const query = `query T($id: ID!) { blueprint(id: $id) { id team { id name conventions members { role principal { id } } } } }`;
    for (const token of [stranger, undefined]) {
      const res = await server.gql.request(query, { id: bp.id }, token);
      if (token === undefined) {
        // anonymous callers may not run `blueprint` at all (section 9); nothing leaks either way
        expect(JSON.stringify(res)).not.toContain(team.id);
        continue;
      }
      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual({ blueprint: { id: bp.id, team: null } });
    }
    const seen = await server.gql.request(query, { id: bp.id }, member);
    expect((seen.data as any).blueprint.team).toMatchObject({ id: team.id, name: 'Secret team' });
  });
});

describe('a live architectureChanged event', () => {
  it("names a transfer's receiving team to its members only", async () => {
    const team = await createTeam(server.rest, owner, [], 'Receiving team');
    const arch = await createArchitecture(server.rest, owner, { name: 'Moving', visibility: 'public' });
    const query = 'subscription C($slug: String!) { architectureChanged(slug: $slug) { kind subjectId } }';
    const mark = liveMark(server);
    const strangerSub = ws(stranger).subscribe<any, any>(query, { slug: arch.slug });
    const ownerSub = ws(owner).subscribe<any, any>(query, { slug: arch.slug });
    await mark.streaming(2);
    expect((await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner, body: { team_id: team.id } })).status).toBe(200);
    const seen = await strangerSub.next();
    expect(seen.data).toEqual({ architectureChanged: { kind: 'TRANSFERRED', subjectId: null } });
    expect((await ownerSub.next()).data).toEqual({ architectureChanged: { kind: 'TRANSFERRED', subjectId: team.id } });
  });
});

describe('the rule: no answer to a stranger names a private blueprint, over any transport', () => {
  it('sweeps every read of a public family with private members and finds none of their ids or slugs', async () => {
    const root = await createBlueprint(server.rest, owner, { name: 'Sweep root', visibility: 'private' });
    const pub = await derive(owner, root.id, 'public'); // public, made from a private parent
    const privateChild = await derive(owner, pub, 'private'); // private, made from the public one
    const publicChild = await derive(owner, pub, 'public');
    const privates = [root.id, privateChild];
    const [rootSlug, childSlug] = await Promise.all(
      privates.map(async (id) => (await server.rest.get(`/api/blueprints/${id}`, { token: owner })).body.slug as string),
    );
    const secrets = [...privates, rootSlug!, childSlug!];

    const answers: unknown[] = [];
    const mark = liveMark(server);
    const sub = ws(stranger).subscribe<any, any>(ACTIVITY, { id: pub });
    await mark.streaming(1);
    await derive(owner, pub, 'private'); // one more private fork while the stranger listens
    answers.push(await sub.next());

    for (const token of [stranger, undefined]) {
      for (const id of [pub, publicChild]) {
        for (const path of ['', '/lineage', '/forks', '/compare', '/changelog', '/breed-suggestions', '/versions'])
          answers.push((await server.rest.get(`/api/blueprints/${id}${path}`, { token })).body);
        answers.push(
          await server.gql.request(
            `query S($id: ID!) { blueprint(id: $id) { id forkedFrom { id } parents { blueprint { id slug } } children { blueprint { id slug } }
               forks(first: 50) { totalCount edges { node { id slug } } } lineage(direction: BOTH, depth: 10) { nodes { id slug } edges { parent { id } child { id } kind } } }
               compareWithParent(id: $id) { parent { id } } }`,
            { id },
            token,
          ),
        );
      }
      answers.push((await server.rest.get('/api/registry?limit=100', { token })).body);
    }
    for (const [tool, args] of [
      ['blueprint_get', { blueprint_id: pub }],
      ['blueprint_lineage', { blueprint_id: pub }],
      ['blueprint_forks', { blueprint_id: pub }],
      ['blueprint_lineage', { blueprint_id: publicChild }],
      ['registry_search', {}],
    ] as const)
      answers.push((await mcpCall(server.url, stranger, tool, args)).body);

    // Ids and slugs as whole JSON strings (a public slug may start with a private one's), or inside a message.
    const text = JSON.stringify(answers);
    const named = (value: string) => text.includes(JSON.stringify(value)) || text.includes(`\\"${value}\\"`);
    expect(named(pub)).toBe(true); // the sweep did read the family
    expect(named(publicChild)).toBe(true);
    expect(secrets.filter(named)).toEqual([]);
    expect(answers.filter((a) => JSON.stringify(a).includes('"INTERNAL"'))).toEqual([]);
  });
});
