import { createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import { BlueprintActivityDocument } from '../generated/graphql';
import { liveMark } from '../helpers/live';
import { mcpCall, mcpResultBody } from '../helpers/mcp';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs } from '../helpers/ws';

let server: TestServer;
let owner: string;
let stranger: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('plan owner');
  stranger = await server.rest.agentToken('stranger');
});
afterAll(() => server.close());

/** The body's plan fields as PUT takes them, with a change applied. */
function planOf(body: any, change: (plan: any) => void = () => {}) {
  const plan = structuredClone({ modules: body.modules, steps: body.steps, configuration: body.configuration, design_system: body.design_system });
  change(plan);
  return plan;
}

const put = (id: string, body: unknown, token = owner) => server.rest.put(`/api/blueprints/${id}/plan`, { token, body });

async function versionRows(id: string) {
  return sql<{ number: number; cause: string }>(server, 'select number, cause from blueprint_version where blueprint_id = ? order by number', [id]);
}

describe('PUT /api/blueprints/:id/plan', () => {
  it('replaces the plan, writes a version with cause edit and its diff, and the body carries the new version', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Editable' });
    expect(bp.version).toBe(1);
    const plan = planOf(bp, (p) => {
      p.modules.push({ key: 'auth', name: 'Auth', kind: 'service', summary: 'Sessions', depends_on: ['db'] });
      p.steps.push({ key: 'login', module_key: 'auth', title: 'Login', instructions: 'cookies', acceptance: ['works'] });
      p.steps = [p.steps[1], p.steps[0], ...p.steps.slice(2)];
      p.configuration.runtime = 'bun';
    });
    const res = await put(bp.id, { ...plan, base_version: 1 });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(2);
    expect(res.body.modules.map((m: any) => m.key)).toEqual(['api', 'db', 'web', 'auth']);
    expect(res.body.steps.map((s: any) => s.key)).toEqual(['endpoints', 'schema', 'pages', 'login']);
    expect(res.body).toMatchObject({ module_count: 4, step_count: 4, configuration: { runtime: 'bun' } });
    const versions = await server.rest.get(`/api/blueprints/${bp.id}/versions`, { token: owner });
    expect(versions.body.items[0]).toMatchObject({
      number: 2,
      cause: 'edit',
      changes: { modules: { added: ['auth'] }, steps: { added: ['login'], reordered: true }, configuration: { changed: ['runtime'] } },
    });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: stranger })).body.version).toBe(2);
  });

  it('answers 409 CONFLICT with details.current_version for a stale base_version, and writes nothing', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Moving' });
    expect((await put(bp.id, { ...planOf(bp, (p) => (p.configuration.a = 1)), base_version: 1 })).status).toBe(200);
    const stale = await put(bp.id, { ...planOf(bp, (p) => (p.configuration.b = 2)), base_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', details: { current_version: 2, base_version: 1 } });
    expect(stale.body.error.message).toMatch(/changed since you opened it/);
    expect(await versionRows(bp.id)).toHaveLength(2);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).body.configuration).toEqual({ runtime: 'node', a: 1 });
  });

  it('lets exactly one of two concurrent saves from the same base win', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Raced' });
    const results = await Promise.all(['left', 'right'].map((side) => put(bp.id, { ...planOf(bp, (p) => (p.configuration.side = side)), base_version: 1 })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!.body.configuration.side;
    expect(await versionRows(bp.id)).toEqual([
      { number: 1, cause: 'create' },
      { number: 2, cause: 'edit' },
    ]);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).body.configuration.side).toBe(winner);
  });

  it('refuses a plan that breaks a section 2 rule with 400 naming the path, and writes nothing', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Strict' });
    const cases: Array<[(p: any) => void, RegExp]> = [
      [(p) => p.modules.push({ ...p.modules[0] }), /modules\/3\/key/],
      [(p) => (p.steps[0].module_key = 'nowhere'), /steps\/0\/module_key/],
      [(p) => (p.modules.find((m: any) => m.key === 'db').depends_on = ['web']), /cycle/],
      [(p) => (p.modules[0].key = 'Not Kebab'), /modules\/0\/key/],
    ];
    for (const [change, path] of cases) {
      const res = await put(bp.id, { ...planOf(bp, change), base_version: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error)).toMatch(path);
    }
    const missing = await put(bp.id, planOf(bp));
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.error)).toMatch(/base_version/);
    expect(await versionRows(bp.id)).toHaveLength(1);
  });

  it('is 404 to those who may not see the blueprint, 403 to readers who may not edit, and lets a team editor save', async () => {
    const priv = await createBlueprint(server.rest, owner, { name: 'Private plan', visibility: 'private' });
    expect((await put(priv.id, { ...planOf(priv), base_version: 1 }, stranger)).status).toBe(404);
    const pub = await createBlueprint(server.rest, owner, { name: 'Public plan' });
    const forbidden = await put(pub.id, { ...planOf(pub, (p) => (p.configuration.x = 1)), base_version: 1 }, stranger);
    expect(forbidden.status).toBe(403);
    const member = await server.rest.agentToken('team member');
    const team = await createTeam(server.rest, owner, [[await principalIdOf(server.gql, member), 'member']], 'Plan team');
    expect((await server.rest.post(`/api/blueprints/${priv.id}/transfer`, { token: owner, body: { team_id: team.id } })).status).toBe(200);
    const saved = await put(priv.id, { ...planOf(priv, (p) => (p.configuration.team = true)), base_version: 1 }, member);
    expect(saved.status).toBe(200);
    const audit = await server.rest.get(`/api/teams/${team.id}/audit?action=blueprint.edited`, { token: owner });
    expect(audit.body.items[0]).toMatchObject({ action: 'blueprint.edited', target_id: priv.id, details: { plan: true, version: 2 } });
  });

  it('tells blueprintActivity subscribers of each saved version, and of no refused or unchanged save', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Watched plan' });
    const ws = connectWs(server.url, stranger);
    try {
      const mark = liveMark(server);
      const sub = ws.subscribe(BlueprintActivityDocument, { id: bp.id });
      await mark.streaming(1);
      expect((await put(bp.id, { ...planOf(bp), base_version: 1 })).status).toBe(200);
      expect((await put(bp.id, { ...planOf(bp, (p) => (p.configuration.x = 1)), base_version: 0 })).status).toBe(409);
      expect((await put(bp.id, { ...planOf(bp, (p) => (p.configuration.x = 1)), base_version: 1 }, stranger)).status).toBe(403);
      expect((await put(bp.id, { ...planOf(bp, (p) => p.modules.push({ ...p.modules[0] })), base_version: 1 })).status).toBe(400);
      expect((await put(bp.id, { ...planOf(bp, (p) => (p.configuration.x = 1)), base_version: 1 })).status).toBe(200);
      // The fence: a later event; events reach a subscriber in the order they were written.
      expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: stranger })).status).toBeLessThan(300);
      const kinds: Array<{ kind: string; actor: string | undefined; version: number | null | undefined }> = [];
      for (;;) {
        const r = await sub.next();
        expect(r.errors).toBeUndefined();
        const a = r.data!.blueprintActivity;
        kinds.push({ kind: a.kind, actor: a.actor?.id, version: a.versionNumber });
        if (a.kind === 'STARRED') break;
      }
      const ownerId = await principalIdOf(server.gql, owner);
      expect(kinds).toEqual([
        { kind: 'VERSION', actor: ownerId, version: 2 },
        { kind: 'STARRED', actor: await principalIdOf(server.gql, stranger), version: null },
      ]);
    } finally {
      await ws.close();
    }
  });

  it('writes no version for an unchanged plan', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Unchanged' });
    const res = await put(bp.id, { ...planOf(bp), base_version: 1 });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(1);
    expect(await versionRows(bp.id)).toHaveLength(1);
  });
});

describe('GraphQL updateBlueprintPlan and MCP blueprint_plan_update', () => {
  const mutation = `mutation($id: ID!, $input: BlueprintPlanInput!) {
    updateBlueprintPlan(id: $id, input: $input) { id version modules { key dependsOn } steps { key moduleKey } configuration }
  }`;
  const toInput = (plan: any, baseVersion: number) => ({
    modules: plan.modules.map((m: any) => ({ key: m.key, name: m.name, summary: m.summary, kind: m.kind, dependsOn: m.depends_on })),
    steps: plan.steps.map((s: any) => ({ key: s.key, moduleKey: s.module_key, title: s.title, instructions: s.instructions, acceptance: s.acceptance })),
    configuration: plan.configuration,
    designSystem: plan.design_system,
    baseVersion,
  });

  it('saves over GraphQL, exposes Blueprint.version, and answers CONFLICT with the current version', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Over GraphQL' });
    const read = await server.gql.ok(`query($id: ID!) { blueprint(id: $id) { version } }`, { id: bp.id }, owner);
    expect(read).toEqual({ blueprint: { version: 1 } });
    const input = toInput(
      planOf(bp, (p) => p.steps.pop()),
      1,
    );
    const done: any = await server.gql.ok(mutation, { id: bp.id, input }, owner);
    expect(done.updateBlueprintPlan).toMatchObject({ version: 2, steps: [{ key: 'schema' }, { key: 'endpoints' }] });
    const stale = await server.gql.request(mutation, { id: bp.id, input }, owner);
    expect(stale.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', details: { current_version: 2 } });
  });

  it('saves over MCP with the REST body, and answers CONFLICT as an isError result', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Over MCP' });
    const args = { blueprint_id: bp.id, ...planOf(bp, (p) => (p.design_system.font = 'Inter')), base_version: 1 };
    const first = await mcpCall(server.url, owner, 'blueprint_plan_update', args);
    expect(mcpResultBody(first)).toMatchObject({ id: bp.id, version: 2, design_system: { font: 'Inter' } });
    const second = await mcpCall(server.url, owner, 'blueprint_plan_update', args);
    expect(second.body.result.isError).toBe(true);
    expect(mcpResultBody(second).error).toMatchObject({ code: 'CONFLICT', details: { current_version: 2 } });
    const got = await mcpCall(server.url, stranger, 'blueprint_get', { blueprint_id: bp.id });
    expect(mcpResultBody(got).version).toBe(2);
  });
});
