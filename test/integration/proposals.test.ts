import { createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let owner: string;
let forker: string;
let stranger: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('target owner');
  forker = await server.rest.agentToken('forker');
  stranger = await server.rest.agentToken('stranger');
});
afterAll(() => server.close());

/** Edits a blueprint's plan through PUT /api/blueprints/:id/plan (wire form), from its current version. */
async function edit(id: string, token: string, change: (plan: any) => void): Promise<any> {
  const { body } = await server.rest.get(`/api/blueprints/${id}`, { token });
  const plan = structuredClone({ modules: body.modules, steps: body.steps, configuration: body.configuration, design_system: body.design_system });
  change(plan);
  const res = await server.rest.put(`/api/blueprints/${id}/plan`, { token, body: { ...plan, base_version: body.version } });
  if (res.status !== 200) throw new Error(`edit: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const open = (target: string, source: string, token = forker, title = 'Improvements') =>
  server.rest.post(`/api/blueprints/${target}/proposals`, { token, body: { source_blueprint_id: source, title, body: 'Please take these' } });
const get = (target: string, n: number, token = owner) => server.rest.get(`/api/blueprints/${target}/proposals/${n}`, { token });
const merge = (target: string, n: number, body: unknown = {}, token = owner) =>
  server.rest.post(`/api/blueprints/${target}/proposals/${n}/merge`, { token, body });

async function pair(name: string) {
  const target = await createBlueprint(server.rest, owner, { name });
  const source = await fork(server.rest, forker, target.id);
  return { target, source };
}

describe('opening and reading a proposal', () => {
  it('lists added, changed and removed modules and steps, merges them into a new version, and tells the author', async () => {
    const { target, source } = await pair('Shop upstream');
    await edit(source.id, forker, (p) => {
      p.modules = p.modules.filter((m: any) => m.key !== 'web');
      p.steps = p.steps.filter((s: any) => s.key !== 'pages');
      p.modules.find((m: any) => m.key === 'api').summary = 'GraphQL API';
      p.steps.find((s: any) => s.key === 'endpoints').instructions = 'Resolvers';
      p.modules.push({ key: 'auth', name: 'Auth', kind: 'service', summary: '', depends_on: ['db'] });
      p.steps.push({ key: 'login', module_key: 'auth', title: 'Login', instructions: 'Sessions', acceptance: [] });
      p.configuration.cache = 'redis';
    });
    const opened = await open(target.id, source.slug);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      number: 1,
      target: { id: target.id, slug: target.slug },
      source: { id: source.id },
      title: 'Improvements',
      body: 'Please take these',
      state: 'open',
      base_version: 1,
      conflicts: [],
      mergeable: true,
      comment_count: 0,
      merged_at: null,
      merge_version: null,
    });
    expect(opened.body.changes).toEqual({
      modules: [
        { key: 'api', change: 'changed', fields: ['summary'] },
        { key: 'auth', change: 'added', fields: [] },
        { key: 'web', change: 'removed', fields: [] },
      ],
      steps: [
        { key: 'endpoints', change: 'changed', fields: ['instructions'] },
        { key: 'login', change: 'added', fields: [] },
        { key: 'pages', change: 'removed', fields: [] },
      ],
      steps_reordered: false,
      configuration: { added: ['cache'], removed: [], changed: [] },
      design_system: { added: [], removed: [], changed: [] },
    });
    // The same body by number, over MCP, and the same data over GraphQL.
    expect((await get(target.id, 1, stranger)).body).toEqual(opened.body);
    expect(mcpResultBody(await mcpCall(server.url, stranger, 'proposal_get', { blueprint_id: target.slug, number: 1 }))).toEqual(opened.body);
    const gql: any = await server.gql.ok(
      `query($id: ID!) { blueprint(id: $id) { proposals { totalCount } proposal(number: 1) { number state mergeable source { id }
        changes { modules { key change fields } steps { key change } configuration { added } } conflicts { key } } } }`,
      { id: target.id },
      stranger,
    );
    expect(gql.blueprint).toMatchObject({
      proposals: { totalCount: 1 },
      proposal: { number: 1, state: 'OPEN', mergeable: true, source: { id: source.id }, conflicts: [], changes: { configuration: { added: ['cache'] } } },
    });
    expect((gql.blueprint as any).proposal.changes.modules).toEqual([
      { key: 'api', change: 'changed', fields: ['summary'] },
      { key: 'auth', change: 'added', fields: [] },
      { key: 'web', change: 'removed', fields: [] },
    ]);

    expect((await merge(target.id, 1, {}, forker)).status).toBe(403);
    const merged = await merge(target.id, 1);
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merge_version: 2, mergeable: false, merged_by: { name: 'target owner' } });
    const after = (await server.rest.get(`/api/blueprints/${target.id}`, { token: owner })).body;
    const fresh = (await server.rest.get(`/api/blueprints/${source.id}`, { token: owner })).body;
    expect(after.version).toBe(2);
    expect(after.modules).toEqual(fresh.modules);
    expect(after.steps).toEqual(fresh.steps);
    expect(after.configuration).toEqual(fresh.configuration);
    const versions = (await server.rest.get(`/api/blueprints/${target.id}/versions`, { token: owner })).body.items;
    expect(versions[0]).toMatchObject({ number: 2, cause: 'merge', changes: { proposal: 1, modules: { added: ['auth'], removed: ['web'] } } });
    const inbox = (await server.rest.get('/api/inbox', { token: forker })).body.items;
    expect(inbox[0].broadcast).toMatchObject({ source_blueprint_id: target.id, type: 'notice' });
    expect(inbox[0].broadcast.message).toMatch(/proposal #1 "Improvements" was merged into Shop upstream as version 2/);
    // Merged is final: no second merge, no reopening.
    expect((await merge(target.id, 1)).status).toBe(409);
    expect((await server.rest.post(`/api/blueprints/${target.id}/proposals/1/reopen`, { token: forker })).status).toBe(409);
  });

  it('refuses a source that does not descend from the target (400), one the caller does not edit (403), and accepts a grandchild', async () => {
    const { target, source } = await pair('Lineage checks');
    const unrelated = await createBlueprint(server.rest, forker, { name: 'Unrelated' });
    const notDescendant = await open(target.id, unrelated.id);
    expect(notDescendant.status).toBe(400);
    expect(notDescendant.body.error.message).toMatch(/does not descend/);
    expect((await open(target.id, source.id, stranger)).status).toBe(403);
    expect((await open(target.id, target.id, owner)).status).toBe(400);
    const grandchild = await fork(server.rest, stranger, source.id);
    await edit(grandchild.id, stranger, (p) => p.modules.push({ key: 'docs', name: 'Docs', kind: 'docs', summary: '', depends_on: [] }));
    const deep = await open(target.id, grandchild.id, stranger);
    expect(deep.status).toBe(201);
    expect(deep.body).toMatchObject({ base_version: 1, changes: { modules: [{ key: 'docs', change: 'added' }] } });
  });

  it('numbers proposals 1, 2, 3... per target, also when they are opened at the same time', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Popular' });
    const forks = await Promise.all([1, 2, 3, 4, 5].map(() => fork(server.rest, forker, target.id)));
    const opened = await Promise.all(forks.map((f) => open(target.id, f.id)));
    expect(opened.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(opened.map((r) => r.body.number).sort()).toEqual([1, 2, 3, 4, 5]);
    const other = await pair('Another target');
    expect((await open(other.target.id, other.source.id)).body.number).toBe(1);
    const list = await server.rest.get(`/api/blueprints/${target.id}/proposals?limit=2`, { token: stranger });
    expect(list.body).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(list.body.items.map((p: any) => p.number)).toEqual([5, 4]);
  });
});

describe('conflicts and the three-way merge', () => {
  it('blocks the merge on a conflict until it is resolved, writing nothing meanwhile', async () => {
    const { target, source } = await pair('Contested');
    await edit(target.id, owner, (p) => (p.steps.find((s: any) => s.key === 'endpoints').title = 'Upstream title'));
    await edit(source.id, forker, (p) => (p.steps.find((s: any) => s.key === 'endpoints').title = 'Fork title'));
    const opened = (await open(target.id, source.id)).body;
    expect(opened.mergeable).toBe(false);
    expect(opened.conflicts).toEqual([
      {
        kind: 'step',
        key: 'endpoints',
        reason: 'both-changed',
        base: expect.objectContaining({ title: 'Build endpoints' }),
        ours: expect.objectContaining({ title: 'Upstream title' }),
        theirs: expect.objectContaining({ title: 'Fork title' }),
      },
    ]);
    const blocked = await merge(target.id, 1);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toMatchObject({ code: 'CONFLICT', details: { unresolved: [{ kind: 'step', key: 'endpoints', reason: 'both-changed' }] } });
    expect((await sql(server, 'select count(*)::int as n from blueprint_version where blueprint_id = ?', [target.id]))[0]).toEqual({ n: 2 });
    expect((await get(target.id, 1)).body.state).toBe('open');
    const unknown = await merge(target.id, 1, { resolutions: [{ kind: 'module', key: 'nowhere', take: 'ours' }] });
    expect(unknown.status).toBe(400);
    const done = await merge(target.id, 1, { resolutions: [{ kind: 'step', key: 'endpoints', take: 'theirs' }] });
    expect(done.status).toBe(200);
    const after = (await server.rest.get(`/api/blueprints/${target.id}`, { token: owner })).body;
    expect(after.steps.find((s: any) => s.key === 'endpoints').title).toBe('Fork title');
  });

  it('keeps the target’s own non-conflicting changes, and takes a custom value over MCP', async () => {
    const { target, source } = await pair('Both moved');
    await edit(target.id, owner, (p) => {
      p.modules.push({ key: 'cache', name: 'Cache', kind: 'infra', summary: '', depends_on: [] });
      p.configuration.region = 'eu';
      p.modules.find((m: any) => m.key === 'db').summary = 'Upstream db';
    });
    await edit(source.id, forker, (p) => {
      p.modules.push({ key: 'auth', name: 'Auth', kind: 'service', summary: '', depends_on: ['db'] });
      p.modules.find((m: any) => m.key === 'db').summary = 'Fork db';
      p.design_system.font = 'Inter';
    });
    await open(target.id, source.id);
    const custom = { key: 'db', name: 'Database', kind: 'data', summary: 'Both', depends_on: [] };
    const res = await mcpCall(server.url, owner, 'proposal_merge', {
      blueprint_id: target.id,
      number: 1,
      resolutions: [{ kind: 'module', key: 'db', take: 'custom', value: custom }],
    });
    expect(mcpResultBody(res)).toMatchObject({ state: 'merged', merge_version: 3 });
    const after = (await server.rest.get(`/api/blueprints/${target.id}`, { token: owner })).body;
    expect(after.modules.map((m: any) => m.key).sort()).toEqual(['api', 'auth', 'cache', 'db', 'web']);
    expect(after.modules.find((m: any) => m.key === 'db').summary).toBe('Both');
    expect(after.configuration).toEqual({ runtime: 'node', region: 'eu' });
    expect(after.design_system).toEqual({ colors: { primary: '#3355ff' }, font: 'Inter' });
  });

  it('stays right while both sides move after it opened', async () => {
    const { target, source } = await pair('Moving heads');
    await edit(source.id, forker, (p) => (p.configuration.runtime = 'deno'));
    await open(target.id, source.id);
    await edit(source.id, forker, (p) => p.steps.push({ key: 'deploy', module_key: 'api', title: 'Deploy', instructions: 'fly', acceptance: [] }));
    let now = (await get(target.id, 1)).body;
    expect(now.changes.steps).toEqual([{ key: 'deploy', change: 'added', fields: [] }]);
    expect(now.mergeable).toBe(true);
    await edit(target.id, owner, (p) => (p.configuration.runtime = 'bun'));
    now = (await get(target.id, 1)).body;
    expect(now.conflicts).toEqual([{ kind: 'configuration', key: 'runtime', reason: 'both-changed', base: 'node', ours: 'bun', theirs: 'deno' }]);
    await edit(target.id, owner, (p) => (p.configuration.runtime = 'deno'));
    now = (await get(target.id, 1)).body;
    expect(now.conflicts).toEqual([]);
    expect(now.mergeable).toBe(true);
    // GraphQL merges with the target's version of a conflict (ours) once one appears again.
    await edit(target.id, owner, (p) => (p.configuration.runtime = 'node18'));
    const merged = await server.gql.request(
      `mutation($t: ID!) { mergeProposal(targetId: $t, number: 1, resolutions: [{kind: CONFIGURATION, key: "runtime", take: OURS}]) { state mergeVersion } }`,
      { t: target.id },
      owner,
    );
    expect(merged.data).toEqual({ mergeProposal: { state: 'MERGED', mergeVersion: 5 } });
    const after = (await server.rest.get(`/api/blueprints/${target.id}`, { token: owner })).body;
    expect(after.configuration.runtime).toBe('node18');
    expect(after.steps.map((s: any) => s.key)).toContain('deploy');
  });

  it('writes a team audit entry when a team target merges', async () => {
    const { target, source } = await pair('Team target');
    const team = await createTeam(server.rest, owner, [], 'Proposal team');
    expect((await server.rest.post(`/api/blueprints/${target.id}/transfer`, { token: owner, body: { team_id: team.id } })).status).toBe(200);
    await edit(source.id, forker, (p) => (p.configuration.tested = true));
    await open(target.id, source.id);
    expect((await merge(target.id, 1)).status).toBe(200);
    const audit = await server.rest.get(`/api/teams/${team.id}/audit?action=blueprint.proposal_merged`, { token: owner });
    expect(audit.body.items).toEqual([
      expect.objectContaining({ action: 'blueprint.proposal_merged', target_id: target.id, details: { proposal: 1, version: 2 } }),
    ]);
  });
});

describe('comments, close and reopen, and who may see what', () => {
  it('anchors comments to a module or step, and lets the author close and reopen', async () => {
    const { target, source } = await pair('Discussed');
    await open(target.id, source.id);
    const base = `/api/blueprints/${target.id}/proposals/1`;
    const c1 = await server.rest.post(`${base}/comments`, { token: owner, body: { body: 'Why this module?', module_key: 'api' } });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({ body: 'Why this module?', module_key: 'api', step_key: null, author: { name: 'target owner' } });
    expect((await server.rest.post(`${base}/comments`, { token: stranger, body: { body: 'Nice', step_key: 'schema' } })).status).toBe(201);
    expect((await server.rest.post(`${base}/comments`, { token: stranger, body: { body: 'Where?', step_key: 'no-such-step' } })).status).toBe(400);
    const list = (await server.rest.get(`${base}/comments`, { token: forker })).body;
    expect(list.total).toBe(2);
    expect(list.items.map((c: any) => c.step_key ?? c.module_key)).toEqual(['api', 'schema']);
    expect((await get(target.id, 1)).body.comment_count).toBe(2);
    expect((await server.rest.post(`${base}/close`, { token: stranger })).status).toBe(403);
    expect((await server.rest.post(`${base}/close`, { token: forker })).body.state).toBe('closed');
    expect((await server.rest.get(`/api/blueprints/${target.id}/proposals`, { token: owner })).body.total).toBe(0);
    expect((await server.rest.get(`/api/blueprints/${target.id}/proposals?state=closed`, { token: owner })).body.total).toBe(1);
    expect((await merge(target.id, 1)).status).toBe(409);
    expect((await server.rest.post(`${base}/reopen`, { token: owner })).body.state).toBe('open');
  });

  it('hides a proposal whose source went private from everyone who may not read the source', async () => {
    const { target, source } = await pair('Private source later');
    await open(target.id, source.id);
    expect((await server.rest.patch(`/api/blueprints/${source.id}`, { token: forker, body: { visibility: 'private' } })).status).toBe(200);
    for (const token of [owner, stranger]) {
      expect((await get(target.id, 1, token)).status).toBe(404);
      expect((await server.rest.get(`/api/blueprints/${target.id}/proposals?state=all`, { token })).body).toMatchObject({ items: [], total: 0 });
      expect((await server.rest.get(`/api/blueprints/${target.id}/proposals/1/comments`, { token })).status).toBe(404);
      expect((await merge(target.id, 1, {}, token)).status).toBe(404);
    }
    const gql: any = await server.gql.ok(
      `query($id: ID!) { blueprint(id: $id) { proposals(state: ALL) { totalCount } proposal(number: 1) { number } } }`,
      { id: target.id },
      owner,
    );
    expect(gql.blueprint).toEqual({ proposals: { totalCount: 0 }, proposal: null });
    expect((await get(target.id, 1, forker)).status).toBe(200);
  });

  it('refuses to open from a private source the target owner may not read (403), without naming it', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Open target' });
    const source = await fork(server.rest, forker, target.id);
    await server.rest.patch(`/api/blueprints/${source.id}`, { token: forker, body: { visibility: 'private' } });
    const res = await open(target.id, source.id);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/owner may not read the source/);
    expect(JSON.stringify(res.body)).not.toContain(source.slug);
  });
});

describe('the cost of a read', () => {
  /** A plan of `n` modules (chained in layers of ten) with two steps each, in the wire form. */
  const planOfSize = (n: number) => ({
    modules: Array.from({ length: n }, (_, i) => ({ key: `m${i}`, name: `M${i}`, kind: 'service', summary: '', depends_on: i < 10 ? [] : [`m${i - 10}`] })),
    steps: Array.from({ length: 2 * n }, (_, i) => ({ key: `s${i}`, module_key: `m${i >> 1}`, title: `S${i}`, instructions: '', acceptance: [] })),
    configuration: {},
    design_system: {},
  });

  async function proposalOver(modules: number) {
    const target = await createBlueprint(server.rest, owner, { name: `Sized ${modules}` });
    await server.rest.put(`/api/blueprints/${target.id}/plan`, { token: owner, body: { ...planOfSize(modules), base_version: 1 } });
    const source = await fork(server.rest, forker, target.id);
    await edit(source.id, forker, (p) => p.modules.forEach((m: any, i: number) => i % 3 === 0 && (m.summary = 'source')));
    await edit(target.id, owner, (p) => p.modules.forEach((m: any, i: number) => i % 5 === 0 && (m.summary = 'target')));
    expect((await open(target.id, source.id)).status).toBe(201);
    return target.id as string;
  }

  it('reads a proposal with a fixed number of SQL statements, whatever the size of the plans', async () => {
    const small = await proposalOver(10);
    const large = await proposalOver(300);
    const statements = async (id: string) => {
      const rest = await get(id, 1);
      expect(rest.status).toBe(200);
      const gql = await server.gql.request(
        `query($id: ID!) { blueprint(id: $id) { proposal(number: 1) { number conflicts { key } changes { modules { key } } } } }`,
        { id },
        owner,
      );
      expect(gql.errors).toBeUndefined();
      return { rest: Number(rest.headers.get('x-sql-statements')), graphql: gql.sqlStatements, conflicts: rest.body.conflicts.length };
    };
    const [s, l] = [await statements(small), await statements(large)];
    expect(l.conflicts).toBeGreaterThan(s.conflicts);
    expect(l.rest).toBe(s.rest);
    expect(l.graphql).toBe(s.graphql);
    expect(l.rest).toBeLessThanOrEqual(6);
  });
});
