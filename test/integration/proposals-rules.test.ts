import { createTeam, principalIdOf, sql } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { blogSpec } from '../fixtures/plans';
import { runTool } from '../fixtures/tools';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The rules of docs/proposals.md the first proposal tests leave out: a breed child (and its fork) as the
 * source, who may close and reopen, comments over every surface, the 404 that says nothing, custom
 * resolutions and plan rules on merge, the author's inbox, and a team editor merging.
 */
let server: TestServer;
let owner: string;
let forker: string;
let stranger: string;
let mcpOwner: McpTestClient;
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('target owner');
  forker = await server.rest.agentToken('forker');
  stranger = await server.rest.agentToken('stranger');
  mcpOwner = await McpTestClient.connect(server.url, owner);
});
afterAll(async () => {
  await mcpOwner.close();
  await server.close();
});

async function edit(id: string, token: string, change: (plan: any) => void): Promise<void> {
  const { body } = await server.rest.get(`/api/blueprints/${id}`, { token });
  const plan = structuredClone({ modules: body.modules, steps: body.steps, configuration: body.configuration, design_system: body.design_system });
  change(plan);
  const res = await server.rest.put(`/api/blueprints/${id}/plan`, { token, body: { ...plan, base_version: body.version } });
  if (res.status !== 200) throw new Error(`edit: ${res.status} ${JSON.stringify(res.body)}`);
}
const path = (target: string, n?: number, action = '') => `/api/blueprints/${target}/proposals${n === undefined ? '' : `/${n}`}${action}`;
const open = (target: string, source: string, token = forker) =>
  server.rest.post(path(target), { token, body: { source_blueprint_id: source, title: 'From below' } });
const act = (target: string, n: number, action: string, token: string, body: unknown = {}) => server.rest.post(path(target, n, `/${action}`), { token, body });
const plainOf = async (id: string) => (await server.rest.get(`/api/blueprints/${id}`, { token: owner })).body;

describe('a breed child as the source', () => {
  /** A breed of the target with a blog (the target's modules and the blog's mailer), then the target moves on. */
  async function bredFamily() {
    const target = await createBlueprint(server.rest, owner, { name: 'Breed target' });
    const blog = await createBlueprint(server.rest, owner, { ...blogSpec, name: 'Blog parent' });
    const bred = await runTool(
      server.rest,
      forker,
      'breed',
      [target.id, blog.id],
      [
        {
          modules: [
            { key: 'api', from: target.id },
            { key: 'db', from: target.id },
            { key: 'web', from: target.id },
            { key: 'mailer', from: blog.id },
          ],
        },
        { name: 'Bred child', visibility: 'public' },
      ],
    );
    const child = await plainOf(bred.result.blueprint_ids[0]);
    // The target moves on after the breed: that is not the child's change, and must not be proposed back.
    await edit(target.id, owner, (p) => (p.modules.find((m: any) => m.key === 'db').summary = 'Upstream db, later'));
    return { target, child };
  }

  it('proposes a breed child’s own changes to its parent, from the version it was bred from', async () => {
    const { target, child } = await bredFamily();
    await edit(child.id, forker, (p) => p.modules.push({ key: 'search', name: 'Search', kind: 'service', summary: '', depends_on: ['db'] }));
    const opened = await open(target.id, child.id);
    expect(opened.status).toBe(201);
    expect(opened.body.base_version).toBe(1);
    expect(opened.body.changes.modules).toContainEqual({ key: 'search', change: 'added', fields: [] });
    expect(opened.body.changes.modules).toContainEqual({ key: 'mailer', change: 'added', fields: [] });
    expect(opened.body.changes.modules.find((m: any) => m.key === 'db')).toBeUndefined();
    expect(opened.body.conflicts).toEqual([]);
    expect((await act(target.id, 1, 'merge', owner)).status).toBe(200);
    const after = await plainOf(target.id);
    expect(after.modules.map((m: any) => m.key)).toEqual(expect.arrayContaining(['search', 'mailer']));
    expect(after.modules.find((m: any) => m.key === 'db').summary).toBe('Upstream db, later');
  });

  it('proposes from a fork of a breed child (depth 2), and from its fork in turn (depth 3)', async () => {
    const { target, child } = await bredFamily();
    const grandchild = await fork(server.rest, stranger, child.id);
    await edit(grandchild.id, stranger, (p) => (p.configuration.queue = 'sqs'));
    const depth2 = await open(target.id, grandchild.id, stranger);
    expect(depth2.status).toBe(201);
    expect(depth2.body).toMatchObject({ base_version: 1, source: { id: grandchild.id }, conflicts: [] });
    expect(depth2.body.changes.configuration.added).toContain('queue');
    const great = await fork(server.rest, forker, grandchild.id);
    await edit(great.id, forker, (p) => p.steps.push({ key: 'index', module_key: 'db', title: 'Index', instructions: 'btree', acceptance: [] }));
    const depth3 = await open(target.id, great.id);
    expect(depth3.status).toBe(201);
    expect(depth3.body.changes.steps).toContainEqual({ key: 'index', change: 'added', fields: [] });
    expect(depth3.body.changes.configuration.added).toContain('queue');
    // A breed child does not descend from the other blueprint of the family the other way round.
    expect((await open(grandchild.id, target.id, owner)).status).toBe(400);
  });
});

describe('close and reopen', () => {
  it('lets the author and the target owner close and reopen, refuses a stranger, and treats a repeat as no change', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Open and shut' });
    const source = await fork(server.rest, forker, target.id);
    await open(target.id, source.id);
    for (const action of ['close', 'reopen']) {
      const refused = await act(target.id, 1, action, stranger);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
    expect((await act(target.id, 1, 'close', owner)).body.state).toBe('closed');
    const updated = (await server.rest.get(path(target.id, 1), { token: owner })).body.updated_at;
    expect((await act(target.id, 1, 'close', forker)).body).toMatchObject({ state: 'closed', updated_at: updated });
    expect((await act(target.id, 1, 'reopen', forker)).body.state).toBe('open');
    const reopened = (await server.rest.get(path(target.id, 1), { token: owner })).body.updated_at;
    expect((await act(target.id, 1, 'reopen', owner)).body).toMatchObject({ state: 'open', updated_at: reopened });
    // The same over GraphQL and MCP.
    const gql = await server.gql.request(`mutation($t: ID!) { closeProposal(targetId: $t, number: 1) { state } }`, { t: target.id }, stranger);
    expect(gql.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await server.gql.ok(`mutation($t: ID!) { closeProposal(targetId: $t, number: 1) { state } }`, { t: target.id }, forker)) as any).toEqual({
      closeProposal: { state: 'CLOSED' },
    });
    expect(await mcpOwner.ok('proposal_reopen', { blueprint_id: target.id, number: 1 })).toMatchObject({ state: 'open' });
    const events = await sql(
      server.databaseUrl,
      `select payload->>'kind' as kind from event_outbox where payload->>'blueprintId' = $1 and payload->>'kind' like 'proposal_%' order by id`,
      [target.id],
    );
    // The repeats wrote no event: open, close, reopen, close, reopen.
    expect(events.map((e: any) => e.kind)).toEqual(['proposal_opened', 'proposal_closed', 'proposal_opened', 'proposal_closed', 'proposal_opened']);
  });
});

describe('over GraphQL', () => {
  it('opens a proposal with what it changes, and closes and reopens it', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'GraphQL target' });
    const source = await fork(server.rest, forker, target.id);
    await edit(source.id, forker, (p) => {
      p.modules = p.modules.filter((m: any) => m.key !== 'web');
      p.steps = p.steps.filter((s: any) => s.key !== 'pages');
      p.steps.find((s: any) => s.key === 'schema').acceptance = ['migrations apply', 'rollback works'];
    });
    const OPEN = `mutation($t: ID!, $s: ID!) { openProposal(targetId: $t, input: {sourceBlueprintId: $s, title: "Slimmer", body: "No web"}) {
      number title body state baseVersion mergeable author { id } source { id }
      changes { modules { key change fields } steps { key change fields } stepsReordered } } }`;
    const opened: any = await server.gql.ok(OPEN, { t: target.id, s: source.slug }, forker);
    expect(opened.openProposal).toEqual({
      number: 1,
      title: 'Slimmer',
      body: 'No web',
      state: 'OPEN',
      baseVersion: 1,
      mergeable: true,
      author: { id: await principalIdOf(server.gql, forker) },
      source: { id: source.id },
      changes: {
        modules: [{ key: 'web', change: 'removed', fields: [] }],
        steps: [
          { key: 'pages', change: 'removed', fields: [] },
          { key: 'schema', change: 'changed', fields: ['acceptance'] },
        ],
        stepsReordered: false,
      },
    });
    const refused = await server.gql.request(OPEN, { t: target.id, s: source.id }, stranger);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const setOpen = (verb: string, token: string) =>
      server.gql.ok(`mutation($t: ID!) { ${verb}Proposal(targetId: $t, number: 1) { state } }`, { t: target.id }, token) as Promise<any>;
    expect((await setOpen('close', owner)).closeProposal.state).toBe('CLOSED');
    expect((await setOpen('reopen', forker)).reopenProposal.state).toBe('OPEN');
  });
});

describe('comments', () => {
  it('anchors a comment to a step over GraphQL and to a module over MCP, and refuses both anchors at once', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Commented' });
    const source = await fork(server.rest, forker, target.id);
    await edit(source.id, forker, (p) => p.steps.push({ key: 'seed', module_key: 'db', title: 'Seed', instructions: 'fixtures', acceptance: [] }));
    await open(target.id, source.id);
    const gql: any = await server.gql.ok(
      `mutation($t: ID!) { commentOnProposal(targetId: $t, number: 1, input: {body: "Only in the fork", stepKey: "seed"}) { body stepKey moduleKey author { id } } }`,
      { t: target.id },
      stranger,
    );
    expect(gql.commentOnProposal).toEqual({
      body: 'Only in the fork',
      stepKey: 'seed',
      moduleKey: null,
      author: { id: await principalIdOf(server.gql, stranger) },
    });
    expect(await mcpOwner.ok('proposal_comment', { blueprint_id: target.id, number: 1, body: 'Fine', module_key: 'db' })).toMatchObject({
      module_key: 'db',
      step_key: null,
    });
    const both = await act(target.id, 1, 'comments', owner, { body: 'x', module_key: 'db', step_key: 'seed' });
    expect(both.status).toBe(400);
    expect(both.body.error.details.issues[0].path).toBe('step_key');
    const listed: any = await server.gql.ok(
      `query($t: ID!) { blueprint(id: $t) { proposal(number: 1) { commentCount comments { totalCount edges { node { body stepKey moduleKey } } } } } }`,
      { t: target.id },
      forker,
    );
    expect(listed.blueprint.proposal).toEqual({
      commentCount: 2,
      comments: {
        totalCount: 2,
        edges: [{ node: { body: 'Only in the fork', stepKey: 'seed', moduleKey: null } }, { node: { body: 'Fine', stepKey: null, moduleKey: 'db' } }],
      },
    });
    expect(await mcpOwner.ok('proposal_comments', { blueprint_id: target.id, number: 1 })).toMatchObject({ total: 2 });
  });
});

describe('a proposal out of sight', () => {
  it('is answered like a number that does not exist, on every action and surface', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Sighted target' });
    const source = await fork(server.rest, forker, target.id);
    await open(target.id, source.id);
    await server.rest.patch(`/api/blueprints/${source.id}`, { token: forker, body: { visibility: 'private' } });
    const strip = (body: any) => JSON.stringify(body).replace(/#\d+/g, '#N');
    for (const [action, body] of [
      ['', undefined],
      ['/comments', { body: 'hello' }],
      ['/close', {}],
      ['/reopen', {}],
      ['/merge', {}],
    ] as const) {
      const hidden =
        body === undefined
          ? await server.rest.get(path(target.id, 1), { token: owner })
          : await server.rest.post(path(target.id, 1, action), { token: owner, body });
      const missing =
        body === undefined
          ? await server.rest.get(path(target.id, 99), { token: owner })
          : await server.rest.post(path(target.id, 99, action), { token: owner, body });
      expect({ action, status: hidden.status }).toEqual({ action, status: 404 });
      expect(strip(hidden.body)).toBe(strip(missing.body));
      expect(JSON.stringify(hidden.body)).not.toContain(source.id);
    }
    const viaMcp = await mcpOwner.call('proposal_get', { blueprint_id: target.id, number: 1 });
    expect(viaMcp).toMatchObject({ isError: true, body: { error: { code: 'NOT_FOUND' } } });
    expect((await mcpOwner.ok('proposal_list', { blueprint_id: target.id, state: 'all' })).total).toBe(0);
  });
});

describe('merging', () => {
  it('refuses a resolution that breaks a plan rule (REST), blocks on conflicts over GraphQL and MCP, and takes custom values over GraphQL', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Custom merge' });
    const source = await fork(server.rest, forker, target.id);
    await edit(target.id, owner, (p) => {
      p.steps.find((s: any) => s.key === 'schema').title = 'Ours';
      p.modules.find((m: any) => m.key === 'web').summary = 'Ours';
      p.configuration.runtime = 'bun';
    });
    await edit(source.id, forker, (p) => {
      p.steps.find((s: any) => s.key === 'schema').title = 'Theirs';
      p.modules.find((m: any) => m.key === 'web').summary = 'Theirs';
      p.configuration.runtime = 'deno';
    });
    await open(target.id, source.id);
    const broken = await act(target.id, 1, 'merge', owner, {
      resolutions: [
        { kind: 'module', key: 'web', take: 'custom', value: { key: 'web', name: 'Web', kind: 'frontend', summary: '', depends_on: ['nowhere'] } },
        { kind: 'step', key: 'schema', take: 'ours' },
        { kind: 'configuration', key: 'runtime', take: 'ours' },
      ],
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.details.issues[0].path).toMatch(/^merged_plan\/modules/);
    // Over GraphQL and MCP an unresolved conflict is CONFLICT too, and nothing is written.
    const blocked = await server.gql.request(`mutation($t: ID!) { mergeProposal(targetId: $t, number: 1) { state } }`, { t: target.id }, owner);
    expect(blocked.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT' });
    expect(await mcpOwner.call('proposal_merge', { blueprint_id: target.id, number: 1 })).toMatchObject({
      isError: true,
      body: { error: { code: 'CONFLICT' } },
    });
    expect((await plainOf(target.id)).version).toBe(2);

    const merged = await server.gql.request(
      `mutation($t: ID!, $r: [ProposalResolutionInput!]) { mergeProposal(targetId: $t, number: 1, resolutions: $r) { state } }`,
      {
        t: target.id,
        r: [
          { kind: 'STEP', key: 'schema', take: 'CUSTOM', value: { key: 'schema', moduleKey: 'db', title: 'Both', instructions: 'agreed', acceptance: ['ok'] } },
          { kind: 'MODULE', key: 'web', take: 'THEIRS' },
          { kind: 'CONFIGURATION', key: 'runtime', take: 'CUSTOM', value: 'node22' },
        ],
      },
      owner,
    );
    expect(merged.errors).toBeUndefined();
    const after = await plainOf(target.id);
    expect(after.steps.find((s: any) => s.key === 'schema')).toMatchObject({ module_key: 'db', title: 'Both', instructions: 'agreed', acceptance: ['ok'] });
    expect(after.modules.find((m: any) => m.key === 'web').summary).toBe('Theirs');
    expect(after.configuration.runtime).toBe('node22');
  });

  it('lets a team editor merge a team target, and sends no notice to an author who merged it themself', async () => {
    const editor = await server.rest.agentToken('team editor');
    const team = await createTeam(server.rest, owner, [[await principalIdOf(server.gql, editor), 'member']], 'Merging team');
    const target = await createBlueprint(server.rest, owner, { name: 'Team merge target' });
    expect((await server.rest.post(`/api/blueprints/${target.id}/transfer`, { token: owner, body: { team_id: team.id } })).status).toBe(200);
    const source = await fork(server.rest, editor, target.id);
    await edit(source.id, editor, (p) => (p.configuration.flag = true));
    await open(target.id, source.id, editor);
    const inboxBefore = (await server.rest.get('/api/inbox', { token: editor })).body.total;
    const res = await act(target.id, 1, 'merge', editor);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', merged_by: { name: 'team editor' } });
    expect((await server.rest.get('/api/inbox', { token: editor })).body.total).toBe(inboxBefore);
    const audit = await server.rest.get(`/api/teams/${team.id}/audit?action=blueprint.proposal_merged`, { token: owner });
    expect(audit.body.items).toEqual([expect.objectContaining({ target_id: target.id, details: { proposal: 1, version: 2 } })]);
  });
});

describe('bad input', () => {
  it('answers each malformed number, state, title and resolution with 400 naming the path, on every surface, and writes nothing', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Strict target' });
    const source = await fork(server.rest, forker, target.id);
    await edit(target.id, owner, (p) => (p.modules.find((m: any) => m.key === 'db').summary = 'Ours'));
    await edit(source.id, forker, (p) => (p.modules.find((m: any) => m.key === 'db').summary = 'Theirs'));
    const pathOf = (res: { body: any }) => res.body.error?.details?.issues?.[0]?.path;
    for (const n of ['0', 'abc', '-1', '1.5', '99999999999']) {
      const res = await server.rest.get(path(target.id, undefined, `/${n}`), { token: owner });
      expect({ n, status: res.status, code: res.body.error.code, path: pathOf(res) }).toEqual({ n, status: 400, code: 'VALIDATION_FAILED', path: 'number' });
    }
    const state = await server.rest.get(`${path(target.id)}?state=bogus`, { token: owner });
    expect([state.status, pathOf(state)]).toEqual([400, 'state']);
    for (const [body, at] of [
      [{ source_blueprint_id: source.id, title: '   ' }, /title/],
      [{ title: 'No source' }, /source_blueprint_id/],
      [{ source_blueprint_id: source.id, title: 'x', extra: 1 }, /extra/],
    ] as const) {
      const res = await server.rest.post(path(target.id), { token: forker, body });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(JSON.stringify(res.body.error.details)).toMatch(at);
    }
    expect((await open(target.id, source.id)).status).toBe(201);
    const db = { key: 'db', name: 'Database', kind: 'data', summary: 'Both', depends_on: [] };
    for (const [resolution, at] of [
      [{ kind: 'bogus', key: 'db', take: 'ours' }, /resolutions\/0\/kind/],
      [{ kind: 'module', key: 'db', take: 'mine' }, /resolutions\/0\/take/],
      [{ kind: 'module', key: 'db', take: 'custom' }, /^body\/resolutions\/0\/value$/],
      [{ kind: 'module', key: 'db', take: 'custom', value: { ...db, key: 'other' } }, /^body\/resolutions\/0\/value\/key$/],
      [{ kind: 'module', key: 'db', take: 'custom', value: { key: 'db' } }, /resolutions\/0\/value/],
      [{ kind: 'module', key: 'web', take: 'ours' }, /^body\/resolutions\/0$/],
    ] as const) {
      const res = await act(target.id, 1, 'merge', owner, { resolutions: [resolution] });
      expect({ resolution, status: res.status, code: res.body.error.code }).toEqual({ resolution, status: 400, code: 'VALIDATION_FAILED' });
      expect(pathOf(res)).toMatch(at);
    }
    // The same refusals over GraphQL and MCP.
    const gql = await server.gql.request(
      `mutation($t: ID!) { mergeProposal(targetId: $t, number: 1, resolutions: [{kind: MODULE, key: "db", take: CUSTOM}]) { state } }`,
      { t: target.id },
      owner,
    );
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(
      (await server.gql.request(`query($t: ID!) { blueprint(id: $t) { proposal(number: 0) { number } } }`, { t: target.id }, owner)).errors?.[0]?.extensions
        ?.code,
    ).toBe('VALIDATION_FAILED');
    expect(
      await mcpOwner.call('proposal_merge', { blueprint_id: target.id, number: 1, resolutions: [{ kind: 'module', key: 'db', take: 'custom' }] }),
    ).toMatchObject({
      isError: true,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
    expect(await mcpOwner.call('proposal_get', { blueprint_id: target.id, number: 0 })).toMatchObject({
      isError: true,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
    // Nothing was merged by any of them.
    expect((await plainOf(target.id)).version).toBe(2);
    expect((await server.rest.get(path(target.id, 1), { token: owner })).body.state).toBe('open');
  });
});
