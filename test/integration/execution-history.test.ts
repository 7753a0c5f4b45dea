import { randomUUID } from 'node:crypto';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { executionState, sql, startRun, walkRun } from '../fixtures/executions';
import { BlueprintExecutionsDocument, ExecutionRunByIdDocument, ReportExecutionDocument } from '../generated/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  [alice, bob, carol] = await Promise.all([server.rest.agentToken('alice'), server.rest.agentToken('bob'), server.rest.agentToken('carol')]);
});
afterAll(() => server.close());

const report = (runId: string, body: unknown, token?: string) => server.rest.post(`/api/executions/${runId}/report`, { token, body });

describe('POST /api/executions/:runId/report', () => {
  it('ends a running run as failed with notes and counts it on the blueprint', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report failed' });
    const run = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, run, 1);
    const res = await report(run.run_id, { status: 'failed', notes: 'migrations did not apply' }, bob);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: run.run_id,
      blueprint_id: bp.id,
      status: 'failed',
      steps_reached: 1,
      total_steps: 3,
      notes: 'migrations did not apply',
    });
    expect(res.body.ended_at).not.toBeNull();
    const state = await executionState(server, bp.id);
    expect(state.counters).toEqual({ executions_started: 1, executions_completed: 0, executions_failed: 1, executions_abandoned: 0 });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: bob })).body.success_rate).toBe(0);
  });

  it('refuses completed (409) for a run that has not reached its last step, and counts nothing (section 15)', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report completed' });
    const untouched = await startRun(server.rest, bob, bp.id);
    const halfway = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, halfway, 2);
    const before = await executionState(server, bp.id);
    for (const [run, reached] of [
      [untouched, 0],
      [halfway, 2],
    ] as const) {
      const res = await report(run.run_id, { status: 'completed', notes: 'done, honestly' }, bob);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { status: 'running', steps_reached: reached, total_steps: 3 } });
    }
    expect(await executionState(server, bp.id)).toEqual(before);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: bob })).body.success_rate).toBeNull();
    const gql = await server.gql.request(ReportExecutionDocument, { runId: untouched.run_id, status: 'COMPLETED' }, bob);
    expect(gql.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('accepts failed and abandoned while the run runs; completed after its last step only adds the notes', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report while running' });
    const gaveUp = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, gaveUp, 1);
    expect((await report(gaveUp.run_id, { status: 'abandoned', notes: 'out of budget' }, bob)).body).toMatchObject({
      status: 'abandoned',
      steps_reached: 1,
      notes: 'out of budget',
    });
    const finished = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, finished);
    const res = await report(finished.run_id, { status: 'completed', notes: 'all green' }, bob);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', steps_reached: 3, notes: 'all green' });
    expect((await executionState(server, bp.id)).counters).toEqual({
      executions_started: 2,
      executions_completed: 1,
      executions_failed: 0,
      executions_abandoned: 1,
    });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: bob })).body.success_rate).toBe(0.5);
  });

  it('is 409 on a run that has ended (reported, or completed by its last step), and changes nothing', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report twice' });
    const reported = await startRun(server.rest, bob, bp.id);
    await report(reported.run_id, { status: 'failed' }, bob);
    const walked = await startRun(server.rest, bob, bp.id);
    await walkRun(server.rest, bob, bp.id, walked);
    const before = await executionState(server, bp.id);
    for (const [runId, status, as] of [
      [reported.run_id, 'failed', 'completed'],
      [reported.run_id, 'failed', 'abandoned'],
      [walked.run_id, 'completed', 'failed'],
    ] as const) {
      const res = await report(runId, { status: as, notes: 'again' }, bob);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { status } });
    }
    expect(await executionState(server, bp.id)).toEqual(before);
  });

  it('is 404 for anyone but the run principal (the blueprint owner included), 401 anonymous; nothing changes', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report others' });
    const run = await startRun(server.rest, bob, bp.id);
    const before = await executionState(server, bp.id);
    for (const token of [carol, alice]) {
      const res = await report(run.run_id, { status: 'failed' }, token);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await report(run.run_id, { status: 'failed' })).status).toBe(401);
    expect((await report(randomUUID(), { status: 'failed' }, bob)).status).toBe(404);
    expect((await report('not-a-uuid', { status: 'failed' }, bob)).status).toBe(404);
    expect(await executionState(server, bp.id)).toEqual(before);
  });

  it('rejects a bad status or notes with 400 naming the field, and changes nothing', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report bad' });
    const run = await startRun(server.rest, bob, bp.id);
    const before = await executionState(server, bp.id);
    const cases: Array<[unknown, string]> = [
      [{}, 'status'],
      [{ status: 'running' }, 'status'],
      [{ status: 'succeeded' }, 'status'],
      [{ status: 'failed', notes: 42 }, 'notes'],
      [{ status: 'failed', notes: 'x'.repeat(10_001) }, 'notes'],
    ];
    for (const [body, path] of cases) {
      const res = await report(run.run_id, body, bob);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues[0].path).toBe(path);
    }
    expect((await server.rest.post(`/api/executions/${run.run_id}/report`, { token: bob, rawBody: '{"status":' })).status).toBe(400);
    expect(await executionState(server, bp.id)).toEqual(before);
  });

  it('works over GraphQL (reportExecution) with the same rules', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Report graph' });
    const run = await startRun(server.rest, bob, bp.id);
    const ok = await server.gql.ok(ReportExecutionDocument, { runId: run.run_id, status: 'FAILED', notes: 'no disk' }, bob);
    expect(ok.reportExecution).toMatchObject({ status: 'FAILED', notes: 'no disk' });
    const again = await server.gql.request(ReportExecutionDocument, { runId: run.run_id, status: 'COMPLETED' }, bob);
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });
});

describe('stats and success rate', () => {
  it('success_rate = completed / (completed + failed + abandoned), on the body, the card and GraphQL', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Rates', tags: ['rates'] });
    expect(bp.success_rate).toBeNull();
    for (let i = 0; i < 3; i++) await walkRun(server.rest, bob, bp.id, await startRun(server.rest, bob, bp.id));
    const failed = await startRun(server.rest, bob, bp.id);
    await report(failed.run_id, { status: 'failed' }, bob);
    await startRun(server.rest, bob, bp.id); // still running: not counted in the rate
    await sql(server, `update blueprint set executions_abandoned = executions_abandoned + 1 where id = $1`, [bp.id]); // as the idle sweep would

    const body = (await server.rest.get(`/api/blueprints/${bp.id}`, { token: bob })).body;
    expect(body.success_rate).toBeCloseTo(3 / 5);
    const card = (await server.rest.get('/api/registry?tags=rates', { token: reader })).body.items[0];
    expect(card).toMatchObject({ id: bp.id, success_rate: body.success_rate });
    const { blueprint } = await server.gql.ok(BlueprintExecutionsDocument, { id: bp.id }, alice);
    expect(blueprint!.successRate).toBeCloseTo(3 / 5);
    expect(blueprint!.executionStats).toEqual({ started: 5, completed: 3, failed: 1, abandoned: 1, running: 0, successRate: blueprint!.successRate });
    const listed = (await server.rest.get(`/api/blueprints/${bp.id}/executions`, { token: alice })).body;
    expect(listed.stats).toEqual({ started: 5, completed: 3, failed: 1, abandoned: 1, running: 0, success_rate: body.success_rate });
  });

  it('a fork starts with no execution history and zero counters; the source keeps its own', async () => {
    const bp = await createBlueprint(server.rest, alice, { name: 'Forked runs' });
    await walkRun(server.rest, bob, bp.id, await startRun(server.rest, bob, bp.id));
    const failed = await startRun(server.rest, alice, bp.id);
    await report(failed.run_id, { status: 'failed' }, alice);
    const copy = await fork(server.rest, carol, bp.id);
    expect(copy.success_rate).toBeNull();
    expect(await executionState(server, copy.id)).toEqual({
      runs: [],
      counters: { executions_started: 0, executions_completed: 0, executions_failed: 0, executions_abandoned: 0 },
    });
    const { blueprint } = await server.gql.ok(BlueprintExecutionsDocument, { id: copy.id }, carol);
    expect(blueprint!.executions.totalCount).toBe(0);
    expect(blueprint!.executionStats).toMatchObject({ started: 0, completed: 0, failed: 0, abandoned: 0 });
    expect((await executionState(server, bp.id)).counters).toMatchObject({ executions_started: 2, executions_completed: 1, executions_failed: 1 });
  });

  it('trending counts principals whose run reached its last step inside the window, not runs started', async () => {
    const quiet = await createBlueprint(server.rest, alice, { name: 'Quiet trend' });
    const busy = await createBlueprint(server.rest, alice, { name: 'Busy trend' });
    for (let i = 0; i < 3; i++) await startRun(server.rest, bob, busy.id); // started, never finished: nothing
    await walkRun(server.rest, bob, quiet.id, await startRun(server.rest, bob, quiet.id));
    await walkRun(server.rest, bob, quiet.id, await startRun(server.rest, bob, quiet.id)); // the same principal again: once
    const res = await server.rest.get('/api/registry/trending?window_days=7&limit=100', { token: reader });
    const byId = new Map(res.body.items.map((i: any) => [i.id, i]));
    expect(byId.get(busy.id)).toBeUndefined();
    expect((byId.get(quiet.id) as any).activity.executions).toBe(1);
    // A success long ago is outside a 7-day window, inside a 60-day one.
    await sql(server, `update execution_run set ended_at = now() - interval '30 days' where blueprint_id = $1`, [quiet.id]);
    const week = await server.rest.get('/api/registry/trending?window_days=7&limit=100', { token: reader });
    expect(week.body.items.find((i: any) => i.id === quiet.id)).toBeUndefined();
    const wide = await server.rest.get('/api/registry/trending?window_days=60&limit=100', { token: reader });
    expect(wide.body.items.find((i: any) => i.id === quiet.id).activity.executions).toBe(1);
  });
});

describe('execution history (who ran what)', () => {
  let bp: any;
  let bobRuns: string[];
  beforeAll(async () => {
    bp = await createBlueprint(server.rest, alice, { name: 'History' });
    bobRuns = [];
    for (let i = 0; i < 3; i++) bobRuns.push((await startRun(server.rest, bob, bp.id)).run_id);
    await startRun(server.rest, carol, bp.id);
    await startRun(server.rest, alice, bp.id);
  });

  it('shows the owner every run, newest first, with who, when and how far', async () => {
    const res = await server.rest.get(`/api/blueprints/${bp.id}/executions?limit=2`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items[0]).toMatchObject({ blueprint_id: bp.id, status: 'running', steps_reached: 0, total_steps: 3 });
    expect(Object.keys(res.body.items[0]).sort()).toEqual([
      'blueprint_id',
      'ended_at',
      'id',
      'last_step_at',
      'notes',
      'principal_id',
      'started_at',
      'status',
      'steps_reached',
      'total_steps',
    ]);
    const all = await server.rest.get(`/api/blueprints/${bp.id}/executions?limit=100`, { token: alice });
    const started = all.body.items.map((r: any) => r.started_at);
    expect([...started].sort().reverse()).toEqual(started);
  });

  it('shows anyone else only their own runs', async () => {
    const res = await server.rest.get(`/api/blueprints/${bp.id}/executions`, { token: bob });
    expect(res.body.total).toBe(3);
    expect(res.body.items.map((r: any) => r.id).sort()).toEqual([...bobRuns].sort());
    const gql = await server.gql.ok(BlueprintExecutionsDocument, { id: bp.id, first: 2 }, bob);
    const conn = gql.blueprint!.executions;
    expect(conn.totalCount).toBe(3);
    expect(conn.edges).toHaveLength(2);
    expect(conn.pageInfo.hasNextPage).toBe(true);
    const rest = await server.gql.ok(BlueprintExecutionsDocument, { id: bp.id, first: 2, after: conn.pageInfo.endCursor }, bob);
    const ids = [...conn.edges, ...rest.blueprint!.executions.edges].map((e) => e.node.id);
    expect(ids.sort()).toEqual([...bobRuns].sort());
    const anonymous = await server.gql.ok(BlueprintExecutionsDocument, { id: bp.id }, reader);
    expect(anonymous.blueprint!.executions.totalCount).toBe(0);
  });

  it('lets the principal and the owner read one run; others get 404 (REST) or null (GraphQL)', async () => {
    expect((await server.rest.get(`/api/executions/${bobRuns[0]}`, { token: bob })).body.id).toBe(bobRuns[0]);
    expect((await server.rest.get(`/api/executions/${bobRuns[0]}`, { token: alice })).status).toBe(200);
    expect((await server.rest.get(`/api/executions/${bobRuns[0]}`, { token: carol })).status).toBe(404);
    expect((await server.rest.get(`/api/executions/${bobRuns[0]}`)).status).toBe(401);
    expect((await server.gql.ok(ExecutionRunByIdDocument, { id: bobRuns[0]! }, carol)).executionRun).toBeNull();
    expect((await server.gql.ok(ExecutionRunByIdDocument, { id: bobRuns[0]! }, bob)).executionRun?.status).toBe('RUNNING');
  });

  it('requires auth and a readable blueprint for the REST history; page limits are 400', async () => {
    expect((await server.rest.get(`/api/blueprints/${bp.id}/executions`)).status).toBe(401);
    const secret = await createBlueprint(server.rest, alice, { name: 'Secret history', visibility: 'private' });
    expect((await server.rest.get(`/api/blueprints/${secret.id}/executions`, { token: bob })).status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/executions?limit=101`, { token: alice })).status).toBe(400);
  });

  it('reads the history of many blueprints in a constant number of SQL statements', async () => {
    const query = (ids: string[]) =>
      `{ ${ids.map((id, i) => `b${i}: blueprint(id: "${id}") { executions(first: 5) { totalCount edges { node { id principal { id } } } } }`).join(' ')} }`;
    const more = [bp.id];
    for (let i = 0; i < 4; i++) {
      const other = await createBlueprint(server.rest, alice, { name: `History ${i}` });
      await startRun(server.rest, alice, other.id);
      more.push(other.id);
    }
    const one = await server.gql.request(query(more.slice(0, 1)), undefined, alice);
    const five = await server.gql.request(query(more), undefined, alice);
    expect(one.errors).toBeUndefined();
    expect(five.errors).toBeUndefined();
    expect(one.sqlStatements).toBeGreaterThan(0);
    expect(five.sqlStatements).toBe(one.sqlStatements);
  });
});
