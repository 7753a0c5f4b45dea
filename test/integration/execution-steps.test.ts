import { randomUUID } from 'node:crypto';
import { createBlueprint, defaultSteps } from '../fixtures/blueprints';
import { executionState, sql, startRun, stepPath, walkRun } from '../fixtures/executions';
import { ExecutionStepDocument, StartExecutionDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let alice: string;
let bob: string;
let shop: any;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.rest.agentToken('alice');
  bob = await server.rest.agentToken('bob');
  shop = await createBlueprint(server.rest, alice, { name: 'Shop', description: 'An online shop', configuration: { language: 'typescript' } });
});
afterAll(() => server.close());

const get = (path: string, token?: string) => server.rest.get(path, { token });

describe('GET /api/blueprints/:id/start', () => {
  it('answers the system prompt, every stage token and step 1, and records a running run', async () => {
    const before = await executionState(server, shop.id);
    const res = await get(`/api/blueprints/${shop.id}/start`, bob);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(['dn', 'next_token', 'run_id', 'stage_tokens', 'step', 'system_prompt', 'total_steps']);
    expect(body.total_steps).toBe(3);
    expect(body.dn).toBe(false);
    expect(body.stage_tokens).toHaveLength(3);
    expect(new Set(body.stage_tokens).size).toBe(3);
    expect(body.next_token).toBe(body.stage_tokens[0]);
    expect(body.step).toEqual({
      key: 'schema',
      module: { key: 'db', name: 'Database', kind: 'data' },
      title: defaultSteps[0]!.title,
      instructions: defaultSteps[0]!.instructions,
      acceptance: ['migrations apply'],
    });
    expect(body.system_prompt).toContain('"Shop" (shop)');
    expect(body.system_prompt).toContain('An online shop');
    expect(body.system_prompt).toContain('"language": "typescript"');
    expect(body.system_prompt).toContain('- api — API (backend): HTTP API. Depends on: db.');

    const after = await executionState(server, shop.id);
    expect(after.counters.executions_started).toBe(before.counters.executions_started + 1);
    const run = after.runs.find((r: any) => r.id === body.run_id);
    expect(run).toMatchObject({ status: 'running', steps_reached: 0, ended_at: null });
    const [stored] = await sql(server, 'select stage_token_hashes from execution_run where id = $1', [body.run_id]);
    for (const t of body.stage_tokens) expect(stored.stage_token_hashes).not.toContain(t);
  });

  it('starts a new run on every call (a run is one start)', async () => {
    const a = await startRun(server.rest, bob, shop.id);
    const b = await startRun(server.rest, bob, shop.id);
    expect(a.run_id).not.toBe(b.run_id);
    expect(a.stage_tokens).not.toEqual(b.stage_tokens);
  });

  it('accepts the slug as well as the id', async () => {
    expect((await get(`/api/blueprints/${shop.slug}/start`, bob)).status).toBe(200);
  });

  it('is 401 for an anonymous caller and records nothing', async () => {
    const before = await executionState(server, shop.id);
    const res = await get(`/api/blueprints/${shop.id}/start`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(await executionState(server, shop.id)).toEqual(before);
  });

  it('is 404 for a private blueprint of someone else, and for an unknown one', async () => {
    const secret = await createBlueprint(server.rest, alice, { name: 'Secret', visibility: 'private' });
    const res = await get(`/api/blueprints/${secret.id}/start`, bob);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await executionState(server, secret.id)).runs).toEqual([]);
    expect((await get(`/api/blueprints/${randomUUID()}/start`, bob)).status).toBe(404);
    // The owner may execute it.
    expect((await get(`/api/blueprints/${secret.id}/start`, alice)).status).toBe(200);
  });

  it('is 409 CONFLICT for a blueprint without steps, and records nothing', async () => {
    const empty = await createBlueprint(server.rest, alice, { name: 'Empty soon' });
    await sql(server, `update blueprint set plan = jsonb_set(plan, '{steps}', '[]'), step_count = 0 where id = $1`, [empty.id]);
    await sql(server, `update blueprint_version set plan = jsonb_set(plan, '{steps}', '[]') where blueprint_id = $1`, [empty.id]);
    const before = await executionState(server, empty.id);
    const res = await get(`/api/blueprints/${empty.id}/start`, bob);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { total_steps: 0 } });
    expect(res.body.error.message).toMatch(/no steps/);
    expect(await executionState(server, empty.id)).toEqual(before);
  });

  it("injects the team's coding conventions into the system prompt of a team blueprint", async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Team app' });
    const without = await startRun(server.rest, alice, bp.id);
    expect(without.system_prompt).not.toContain('Coding conventions');
    const teamId = randomUUID();
    await sql(server, `insert into team (id, name, conventions) values ($1, 'Platform', 'Prefer composition over inheritance.')`, [teamId]);
    await sql(server, 'update blueprint set team_id = $1 where id = $2', [teamId, bp.id]);
    // Conventions go to the team's members only (a stranger running it learns nothing of the team).
    await sql(server, `insert into team_member (team_id, principal_id, role) values ($1, $2, 'member')`, [teamId, bp.owner_id]);
    const withTeam = await startRun(server.rest, alice, bp.id);
    expect(withTeam.system_prompt).toContain('## Coding conventions of team "Platform"');
    expect(withTeam.system_prompt).toContain('Prefer composition over inheritance.');
  });
});

describe('GET /api/blueprints/:id/step/:n', () => {
  it('walks the run: each step answers its content and the next token; the last says dn and completes the run', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Walk' });
    const start = await startRun(server.rest, bob, bp.id);
    let token = start.next_token;
    for (let n = 1; n <= 3; n++) {
      const res = await get(stepPath(bp.id, n, token), bob);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['dn', 'n', 'next_token', 'run_id', 'step']);
      expect(res.body).toMatchObject({ run_id: start.run_id, n, dn: n === 3 });
      expect(res.body.step.key).toBe(defaultSteps[n - 1]!.key);
      expect(res.body.step.module.key).toBe(defaultSteps[n - 1]!.module_key);
      expect(res.body.next_token).toBe(n < 3 ? start.stage_tokens[n] : null);
      const [run] = await sql(server, 'select status, steps_reached from execution_run where id = $1', [start.run_id]);
      expect(run).toEqual({ status: n < 3 ? 'running' : 'completed', steps_reached: n });
      token = res.body.next_token;
    }
    const state = await executionState(server, bp.id);
    expect(state.counters).toEqual({ executions_started: 1, executions_completed: 1, executions_failed: 0, executions_abandoned: 0 });
    expect(state.runs[0].ended_at).not.toBeNull();
  });

  it('answers a repeated GET the same and counts nothing again, even on the last step', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Repeat' });
    const start = await startRun(server.rest, bob, bp.id);
    const first = await get(stepPath(bp.id, 1, start.stage_tokens[0]), bob);
    const afterFirst = await executionState(server, bp.id);
    const again = await get(stepPath(bp.id, 1, start.stage_tokens[0]), bob);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await executionState(server, bp.id)).toEqual(afterFirst);

    const last = await walkRun(server.rest, bob, bp.id, start);
    const completed = await executionState(server, bp.id);
    expect(completed.counters.executions_completed).toBe(1);
    for (let i = 0; i < 2; i++) {
      const res = await get(stepPath(bp.id, 3, start.stage_tokens[2]), bob);
      expect(res.body).toEqual(last);
    }
    // An earlier step of a completed run still answers the same.
    expect((await get(stepPath(bp.id, 2, start.stage_tokens[1]), bob)).body.step.key).toBe('endpoints');
    expect(await executionState(server, bp.id)).toEqual(completed);
  });

  it('rejects a wrong token with 409 STALE_STEP_TOKEN and records nothing', async () => {
    const start = await startRun(server.rest, bob, shop.id);
    const before = await executionState(server, shop.id);
    for (const wrong of ['bwx_not-a-real-token', start.stage_tokens[0] + 'x', start.stage_tokens[0].toUpperCase()]) {
      const res = await get(stepPath(shop.id, 1, wrong), bob);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('STALE_STEP_TOKEN');
    }
    expect(await executionState(server, shop.id)).toEqual(before);
  });

  it("rejects another step's token (replayed or ahead) with 409 and records nothing", async () => {
    const start = await startRun(server.rest, bob, shop.id);
    await get(stepPath(shop.id, 1, start.stage_tokens[0]), bob);
    const before = await executionState(server, shop.id);
    const cases: Array<[number, string]> = [
      [2, start.stage_tokens[0]], // step 1's token replayed at step 2
      [1, start.stage_tokens[1]], // step 2's token at step 1
      [3, start.stage_tokens[1]],
    ];
    for (const [n, t] of cases) {
      const res = await get(stepPath(shop.id, n, t), bob);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('STALE_STEP_TOKEN');
    }
    expect(await executionState(server, shop.id)).toEqual(before);
  });

  it('rejects a step out of turn (step 3 before step 2) with 409 and records nothing', async () => {
    const start = await startRun(server.rest, bob, shop.id);
    await get(stepPath(shop.id, 1, start.stage_tokens[0]), bob);
    const before = await executionState(server, shop.id);
    const res = await get(stepPath(shop.id, 3, start.stage_tokens[2]), bob);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('STALE_STEP_TOKEN');
    expect(res.body.error.message).toMatch(/step 2 comes before step 3/);
    expect(await executionState(server, shop.id)).toEqual(before);
  });

  it("rejects the token of another run: of another blueprint, or of another caller's run", async () => {
    const other = await createBlueprint(server.rest, alice, { name: 'Other' });
    const otherRun = await startRun(server.rest, bob, other.id);
    const aliceRun = await startRun(server.rest, alice, shop.id);
    const before = [await executionState(server, shop.id), await executionState(server, other.id)];
    const onShop = await get(stepPath(shop.id, 1, otherRun.stage_tokens[0]), bob);
    expect(onShop.status).toBe(409);
    expect(onShop.body.error.code).toBe('STALE_STEP_TOKEN');
    const stolen = await get(stepPath(shop.id, 1, aliceRun.stage_tokens[0]), bob);
    expect(stolen.status).toBe(409);
    expect(stolen.body.error.code).toBe('STALE_STEP_TOKEN');
    expect([await executionState(server, shop.id), await executionState(server, other.id)]).toEqual(before);
  });

  it('rejects a step number out of range, or not a number, with 400 naming n, and records nothing', async () => {
    const start = await startRun(server.rest, bob, shop.id);
    const before = await executionState(server, shop.id);
    for (const [n, t] of [
      [0, start.stage_tokens[0]],
      [4, start.stage_tokens[0]],
      ['abc', start.stage_tokens[0]],
      ['-1', start.stage_tokens[0]],
      [99, 'bwx_wrong'],
    ] as const) {
      const res = await get(stepPath(shop.id, n, t), bob);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues[0].path).toBe('n');
    }
    expect(await executionState(server, shop.id)).toEqual(before);
  });

  it('requires the token query parameter (400)', async () => {
    const res = await get(stepPath(shop.id, 1), bob);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('token');
  });

  it('is 401 anonymous and 404 on a private blueprint of someone else, before looking at the token', async () => {
    const secret = await createBlueprint(server.rest, alice, { name: 'Secret steps', visibility: 'private' });
    const start = await startRun(server.rest, alice, secret.id);
    const before = await executionState(server, secret.id);
    const anonymous = await get(stepPath(secret.id, 1, start.stage_tokens[0]));
    expect(anonymous.status).toBe(401);
    const other = await get(stepPath(secret.id, 1, start.stage_tokens[0]), bob);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect(await executionState(server, secret.id)).toEqual(before);
  });

  it('counts a step once when the same step is fetched concurrently', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Race' });
    const start = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, start, 2);
    const results = await Promise.all(Array.from({ length: 6 }, () => get(stepPath(bp.id, 3, start.stage_tokens[2]), bob)));
    for (const r of results) expect(r.body).toEqual(results[0]!.body);
    const state = await executionState(server, bp.id);
    expect(state.counters).toMatchObject({ executions_started: 1, executions_completed: 1 });
  });

  it('keeps a run on the plan it started with while the blueprint changes', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Versioned' });
    const start = await startRun(server.rest, bob, bp.id);
    // A later version renames step 2 (what an INPLACE tool would write).
    await sql(
      server,
      `insert into blueprint_version (id, blueprint_id, number, author_id, cause, changes, plan)
       select $1, blueprint_id, 2, author_id, 'edit', '{}', jsonb_set(plan, '{steps,1,title}', '"Renamed"') from blueprint_version where blueprint_id = $2 and number = 1`,
      [randomUUID(), bp.id],
    );
    await sql(server, `update blueprint set plan = jsonb_set(plan, '{steps,1,title}', '"Renamed"') where id = $1`, [bp.id]);
    const step2 = await walkRun(server.rest, bob, bp.id, start, 2);
    expect(step2.step.title).toBe(defaultSteps[1]!.title);
    const fresh = await startRun(server.rest, bob, bp.id);
    expect((await walkRun(server.rest, bob, bp.id, fresh, 2)).step.title).toBe('Renamed');
  });
});

describe('GraphQL startExecution / executionStep', () => {
  it('runs a blueprint to completion with typed results', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Graph run' });
    const { startExecution: start } = await server.gql.ok(StartExecutionDocument, { blueprintId: bp.id }, bob);
    expect(start).toMatchObject({
      totalSteps: 3,
      dn: false,
      nextToken: start.stageTokens[0],
      run: { status: 'RUNNING', stepsReached: 0, blueprint: { id: bp.id } },
    });
    expect(start.step.module).toEqual({ key: 'db', name: 'Database', kind: 'data' });
    expect(start.systemPrompt).toContain('Graph run');
    let token: string | null | undefined = start.nextToken;
    for (let n = 1; n <= 3; n++) {
      const stepToken: string = token!;
      const { executionStep: step } = await server.gql.ok(ExecutionStepDocument, { blueprintId: bp.id, n, token: stepToken }, bob);
      expect(step).toMatchObject({ runId: start.runId, n, dn: n === 3, run: { stepsReached: n, status: n === 3 ? 'COMPLETED' : 'RUNNING' } });
      token = step.nextToken;
    }
    expect(token).toBeNull();
  });

  it('reports the same error codes as REST and records nothing', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Graph errors' });
    const { startExecution: start } = await server.gql.ok(StartExecutionDocument, { blueprintId: bp.id }, bob);
    const before = await executionState(server, bp.id);
    const stale = await server.gql.request(ExecutionStepDocument, { blueprintId: bp.id, n: 1, token: 'bwx_nope' }, bob);
    expect(stale.errors?.[0]?.extensions?.code).toBe('STALE_STEP_TOKEN');
    const range = await server.gql.request(ExecutionStepDocument, { blueprintId: bp.id, n: 9, token: start.stageTokens[0]! }, bob);
    expect(range.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const anonymous = await server.gql.request(StartExecutionDocument, { blueprintId: bp.id });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await executionState(server, bp.id)).toEqual(before);
  });
});
