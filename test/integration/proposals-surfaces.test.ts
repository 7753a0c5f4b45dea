import { createBlueprint, fork } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import {
  SurfaceMergeProposalDocument,
  SurfaceOpenProposalDocument,
  SurfaceProposalDocument,
  SurfaceUpdatePlanDocument,
  type ProposalConflictKind,
  type SurfaceProposalFragment,
} from '../generated/graphql';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The same proposal stories told over each surface (REST, GraphQL, MCP), every write and read of a story
 * through that surface: the plan edits of both sides, opening, reading while both heads move, the merge
 * blocked by a conflict until it has a resolution, the merge keeping the target's own non-conflicting
 * changes (additions, changes and removals), and an empty proposal whose merge changes nothing.
 */
let server: TestServer;
let owner: string;
let forker: string;
const mcp = new Map<string, McpTestClient>();

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('target owner');
  forker = await server.rest.agentToken('forker');
  for (const token of [owner, forker]) mcp.set(token, await McpTestClient.connect(server.url, token));
});
afterAll(async () => {
  for (const client of mcp.values()) await client.close();
  await server.close();
});

type KeyChange = { key: string; change: string; fields: string[] };
type JsonDiff = { added: string[]; removed: string[]; changed: string[] };
/** A proposal as every surface reads it, in one form (REST names, lowercase states and kinds). */
interface View {
  number: number;
  state: string;
  mergeable: boolean;
  baseVersion: number | null;
  mergeVersion: number | null;
  modules: KeyChange[];
  steps: KeyChange[];
  configuration: JsonDiff;
  designSystem: JsonDiff;
  /** base, ours, theirs: null where the item is absent on that side. */
  conflicts: Array<{ kind: string; key: string; reason: string; base: unknown; ours: unknown; theirs: unknown }>;
}
type Resolution = { kind: 'module' | 'step' | 'configuration' | 'design_system'; key: string; take: 'ours' | 'theirs' };
type MergeAnswer = { ok: true; view: View } | { ok: false; code: string; details: any };
/** The plan in its REST (wire) form. */
type WirePlan = { modules: any[]; steps: any[]; configuration: Record<string, unknown>; design_system: Record<string, unknown> };

interface Surface {
  savePlan(id: string, token: string, plan: WirePlan, baseVersion: number): Promise<void>;
  open(target: string, source: string, token: string): Promise<View>;
  read(target: string, number: number, token: string): Promise<View>;
  merge(target: string, number: number, token: string, resolutions?: Resolution[]): Promise<MergeAnswer>;
}

const sortFields = (items: KeyChange[]) => items.map((i) => ({ ...i, fields: [...i.fields].sort() }));

function fromRest(p: any): View {
  return {
    number: p.number,
    state: p.state,
    mergeable: p.mergeable,
    baseVersion: p.base_version,
    mergeVersion: p.merge_version,
    modules: sortFields(p.changes.modules),
    steps: sortFields(p.changes.steps),
    configuration: p.changes.configuration,
    designSystem: p.changes.design_system,
    conflicts: p.conflicts.map((c: any) => ({ kind: c.kind, key: c.key, reason: c.reason, base: c.base, ours: c.ours, theirs: c.theirs })),
  };
}

function fromGraphQL(p: SurfaceProposalFragment): View {
  return {
    number: p.number,
    state: p.state.toLowerCase(),
    mergeable: p.mergeable,
    baseVersion: p.baseVersion,
    mergeVersion: p.mergeVersion,
    modules: sortFields(p.changes.modules),
    steps: sortFields(p.changes.steps),
    configuration: p.changes.configuration,
    designSystem: p.changes.designSystem,
    conflicts: p.conflicts.map((c) => ({ kind: c.kind.toLowerCase(), key: c.key, reason: c.reason, base: c.base, ours: c.ours, theirs: c.theirs })),
  };
}

const proposals = (target: string) => `/api/blueprints/${target}/proposals`;

const rest: Surface = {
  async savePlan(id, token, plan, baseVersion) {
    const res = await server.rest.put(`/api/blueprints/${id}/plan`, { token, body: { ...plan, base_version: baseVersion } });
    if (res.status !== 200) throw new Error(`PUT plan: ${res.status} ${JSON.stringify(res.body)}`);
  },
  async open(target, source, token) {
    const res = await server.rest.post(proposals(target), { token, body: { source_blueprint_id: source, title: 'Over REST' } });
    expect(res.status).toBe(201);
    return fromRest(res.body);
  },
  async read(target, number, token) {
    const res = await server.rest.get(`${proposals(target)}/${number}`, { token });
    expect(res.status).toBe(200);
    return fromRest(res.body);
  },
  async merge(target, number, token, resolutions) {
    const res = await server.rest.post(`${proposals(target)}/${number}/merge`, { token, body: resolutions ? { resolutions } : {} });
    return res.status === 200 ? { ok: true, view: fromRest(res.body) } : { ok: false, code: res.body.error.code, details: res.body.error.details };
  },
};

const graphql: Surface = {
  async savePlan(id, token, plan, baseVersion) {
    await server.gql.ok(
      SurfaceUpdatePlanDocument,
      {
        id,
        input: {
          baseVersion,
          modules: plan.modules.map((m) => ({ key: m.key, name: m.name, summary: m.summary, kind: m.kind, dependsOn: m.depends_on })),
          steps: plan.steps.map((s) => ({ key: s.key, moduleKey: s.module_key, title: s.title, instructions: s.instructions, acceptance: s.acceptance })),
          configuration: plan.configuration,
          designSystem: plan.design_system,
        },
      },
      token,
    );
  },
  async open(target, source, token) {
    const data = await server.gql.ok(SurfaceOpenProposalDocument, { targetId: target, input: { sourceBlueprintId: source, title: 'Over GraphQL' } }, token);
    return fromGraphQL(data.openProposal);
  },
  async read(target, number, token) {
    const data = await server.gql.ok(SurfaceProposalDocument, { id: target, number }, token);
    expect(data.blueprint?.proposal).toBeTruthy();
    return fromGraphQL(data.blueprint!.proposal!);
  },
  async merge(target, number, token, resolutions) {
    const r = await server.gql.request(
      SurfaceMergeProposalDocument,
      {
        targetId: target,
        number,
        ...(resolutions
          ? {
              resolutions: resolutions.map((x) => ({
                kind: x.kind.toUpperCase() as ProposalConflictKind,
                key: x.key,
                take: x.take === 'ours' ? ('OURS' as const) : ('THEIRS' as const),
              })),
            }
          : {}),
      },
      token,
    );
    if (r.data?.mergeProposal) return { ok: true, view: fromGraphQL(r.data.mergeProposal) };
    return { ok: false, code: r.errors?.[0]?.extensions?.code ?? 'none', details: r.errors?.[0]?.extensions?.details };
  },
};

const client = (token: string) => mcp.get(token)!;
const viaMcp: Surface = {
  async savePlan(id, token, plan, baseVersion) {
    await client(token).ok('blueprint_plan_update', { blueprint_id: id, ...plan, base_version: baseVersion });
  },
  async open(target, source, token) {
    return fromRest(await client(token).ok('proposal_open', { blueprint_id: target, source_blueprint_id: source, title: 'Over MCP' }));
  },
  async read(target, number, token) {
    return fromRest(await client(token).ok('proposal_get', { blueprint_id: target, number }));
  },
  async merge(target, number, token, resolutions) {
    const answer = await client(token).call('proposal_merge', { blueprint_id: target, number, ...(resolutions ? { resolutions } : {}) });
    return answer.isError ? { ok: false, code: answer.body.error.code, details: answer.body.error.details } : { ok: true, view: fromRest(answer.body) };
  },
};

/** A blueprint's REST body (the plan in wire form, with its version). */
const bodyOf = async (id: string) => (await server.rest.get(`/api/blueprints/${id}`, { token: owner })).body;
const planOf = (body: any): WirePlan =>
  structuredClone({ modules: body.modules, steps: body.steps, configuration: body.configuration, design_system: body.design_system });
const versionCount = async (id: string) =>
  (await sql<{ n: number }>(server, 'select count(*)::int as n from blueprint_version where blueprint_id = ?', [id]))[0]!.n;
const noJsonChange: JsonDiff = { added: [], removed: [], changed: [] };

describe.each([
  ['REST', rest],
  ['GraphQL', graphql],
  ['MCP', viaMcp],
] as const)('proposals over %s', (name, surface) => {
  /** Reads the current plan and saves it changed, through the surface. */
  async function edit(id: string, token: string, change: (plan: WirePlan) => void): Promise<void> {
    const body = await bodyOf(id);
    const plan = planOf(body);
    change(plan);
    await surface.savePlan(id, token, plan, body.version);
  }

  it('stays right while both sides move, blocks the merge on a conflict until it is resolved, and keeps the target’s own changes', async () => {
    const target = await createBlueprint(server.rest, owner, { name: `${name} moving target` });
    const source = await fork(server.rest, forker, target.id);
    await edit(source.id, forker, (p) => {
      p.modules.push({ key: 'auth', name: 'Auth', kind: 'service', summary: 'Sessions', depends_on: ['db'] });
      p.steps.find((s) => s.key === 'endpoints').instructions = 'Resolvers';
      p.steps = p.steps.filter((s) => s.key !== 'pages');
      p.design_system.font = 'Inter';
    });
    const sourceChanges = {
      modules: [{ key: 'auth', change: 'added', fields: [] }],
      steps: [
        { key: 'endpoints', change: 'changed', fields: ['instructions'] },
        { key: 'pages', change: 'removed', fields: [] },
      ],
      configuration: noJsonChange,
      designSystem: { added: ['font'], removed: [], changed: [] },
    };
    const opened = await surface.open(target.id, source.id, forker);
    expect(opened).toEqual({ number: 1, state: 'open', mergeable: true, baseVersion: 1, mergeVersion: null, conflicts: [], ...sourceChanges });

    // The target moves on its own: an added module, a changed one, a removed module and step, a configuration key.
    await edit(target.id, owner, (p) => {
      p.modules.push({ key: 'cache', name: 'Cache', kind: 'infra', summary: '', depends_on: [] });
      p.modules.find((m) => m.key === 'db').summary = 'Upstream db';
      p.modules = p.modules.filter((m) => m.key !== 'web');
      p.steps = p.steps.filter((s) => s.key !== 'pages');
      p.configuration.region = 'eu';
    });
    // What the source proposes is unchanged by the target's moves, and none of them conflicts with it.
    expect(await surface.read(target.id, 1, owner)).toEqual({ ...opened, ...sourceChanges });

    // Both sides now change the same step differently, and the source adds a step.
    await edit(source.id, forker, (p) => {
      p.steps.find((s) => s.key === 'endpoints').title = 'Fork title';
      p.steps.push({ key: 'login', module_key: 'auth', title: 'Login', instructions: 'Cookies', acceptance: ['signs in'] });
    });
    await edit(target.id, owner, (p) => (p.steps.find((s) => s.key === 'endpoints').title = 'Upstream title'));
    const moved = await surface.read(target.id, 1, owner);
    expect(moved.steps).toEqual([
      { key: 'endpoints', change: 'changed', fields: ['instructions', 'title'] },
      { key: 'login', change: 'added', fields: [] },
      { key: 'pages', change: 'removed', fields: [] },
    ]);
    expect(moved.mergeable).toBe(false);
    expect(moved.conflicts).toEqual([
      {
        kind: 'step',
        key: 'endpoints',
        reason: 'both-changed',
        base: expect.objectContaining({ title: 'Build endpoints', instructions: 'CRUD routes' }),
        ours: expect.objectContaining({ title: 'Upstream title', instructions: 'CRUD routes' }),
        theirs: expect.objectContaining({ title: 'Fork title', instructions: 'Resolvers' }),
      },
    ]);

    // No merge while the conflict has no resolution: CONFLICT naming it, nothing written.
    const before = await bodyOf(target.id);
    expect(before.version).toBe(3);
    const blocked = await surface.merge(target.id, 1, owner);
    expect(blocked).toEqual({ ok: false, code: 'CONFLICT', details: { unresolved: [{ kind: 'step', key: 'endpoints', reason: 'both-changed' }] } });
    expect(planOf(await bodyOf(target.id))).toEqual(planOf(before));
    expect(await versionCount(target.id)).toBe(3);
    expect((await surface.read(target.id, 1, owner)).state).toBe('open');

    const merged = await surface.merge(target.id, 1, owner, [{ kind: 'step', key: 'endpoints', take: 'theirs' }]);
    expect(merged).toMatchObject({ ok: true, view: { state: 'merged', mergeVersion: 4, mergeable: false, conflicts: [] } });
    const after = await bodyOf(target.id);
    expect(after.version).toBe(4);
    // The target's own changes stay: cache added, db changed, web removed (not brought back), region set.
    expect(after.modules.map((m: any) => m.key).sort()).toEqual(['api', 'auth', 'cache', 'db']);
    expect(after.modules.find((m: any) => m.key === 'db').summary).toBe('Upstream db');
    expect(after.configuration).toEqual({ runtime: 'node', region: 'eu' });
    // The source's: auth and login added, endpoints as resolved, pages removed, the font.
    expect(after.steps.map((s: any) => s.key)).toEqual(['schema', 'endpoints', 'login']);
    expect(after.steps.find((s: any) => s.key === 'endpoints')).toMatchObject({ title: 'Fork title', instructions: 'Resolvers' });
    expect(after.design_system).toEqual({ colors: { primary: '#3355ff' }, font: 'Inter' });
  });

  it('merges an empty proposal without changing anything, also one whose source changed and changed back', async () => {
    const target = await createBlueprint(server.rest, owner, { name: `${name} empty target` });
    const source = await fork(server.rest, forker, target.id);
    await edit(target.id, owner, (p) => {
      p.configuration.region = 'eu';
      p.modules.push({ key: 'cache', name: 'Cache', kind: 'infra', summary: '', depends_on: [] });
    });
    await edit(source.id, forker, (p) => (p.configuration.region = 'us'));
    expect((await surface.open(target.id, source.id, forker)).conflicts).toEqual([
      { kind: 'configuration', key: 'region', reason: 'both-added', base: null, ours: 'eu', theirs: 'us' },
    ]);
    await edit(source.id, forker, (p) => delete p.configuration.region);
    const empty = await surface.read(target.id, 1, owner);
    expect(empty).toEqual({
      number: 1,
      state: 'open',
      mergeable: true,
      baseVersion: 1,
      mergeVersion: null,
      modules: [],
      steps: [],
      configuration: noJsonChange,
      designSystem: noJsonChange,
      conflicts: [],
    });
    const before = await bodyOf(target.id);
    const versions = await versionCount(target.id);
    const merged = await surface.merge(target.id, 1, owner);
    expect(merged).toMatchObject({ ok: true, view: { state: 'merged', mergeVersion: null } });
    const after = await bodyOf(target.id);
    expect(after.version).toBe(before.version);
    expect(planOf(after)).toEqual(planOf(before));
    expect(await versionCount(target.id)).toBe(versions);
    const inbox = (await server.rest.get('/api/inbox', { token: forker })).body.items;
    expect(inbox[0].broadcast.message).toMatch(new RegExp(`proposal #1 .* was merged into ${name} empty target \\(it changed nothing\\)`));
  });
});
