import { createBlueprint } from '../fixtures/blueprints';
import { executionState, sql, startRun, stepPath, walkRun } from '../fixtures/executions';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Long enough that a busy machine never idles a run between two quick requests by accident: the tests age
 * runs in the database instead of waiting, so a long limit costs nothing.
 */
const IDLE_MS = 10_000;

/**
 * Moves a run's clock back by `ms`, as if that much time had passed since its start and its last step: the
 * idle rule reads only those two stamps, so this is the same to the server as waiting, without the wait.
 */
async function age(server: TestServer, runId: string, ms: number): Promise<void> {
  await sql(
    server,
    `update execution_run set started_at = started_at - make_interval(secs => $2::float8 / 1000),
            last_step_at = last_step_at - make_interval(secs => $2::float8 / 1000) where id = $1`,
    [runId, ms],
  );
}

describe('a run with no step for executionIdleMs, touched again (lazy)', () => {
  let server: TestServer;
  let owner: string;
  let agent: string;
  beforeAll(async () => {
    // The sweep is pushed out of the way: only touching the run may settle it here.
    server = await startTestServer({ limits: { executionIdleMs: IDLE_MS, executionSweepMs: 3_600_000 } });
    [owner, agent] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('agent')]);
  });
  afterAll(() => server.close());

  it('is abandoned on its next step: 409, counted once, and no later step or report moves it', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Idle step' });
    const run = await startRun(server.rest, agent, bp.id);
    const step1 = await walkRun(server.rest, agent, bp.id, run, 1);
    await age(server, run.run_id, IDLE_MS + 1000);
    const late = await server.rest.get(stepPath(bp.id, 2, step1.next_token), { token: agent });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'CONFLICT', details: { status: 'abandoned', run_id: run.run_id } });
    const state = await executionState(server, bp.id);
    expect(state.runs[0]).toMatchObject({ status: 'abandoned', steps_reached: 1 });
    expect(state.runs[0].ended_at).not.toBeNull();
    expect(state.counters).toEqual({ executions_started: 1, executions_completed: 0, executions_failed: 0, executions_abandoned: 1 });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: agent })).body.success_rate).toBe(0);

    // Trying again, or reporting, changes nothing more.
    expect((await server.rest.get(stepPath(bp.id, 2, step1.next_token), { token: agent })).status).toBe(409);
    const rep = await server.rest.post(`/api/executions/${run.run_id}/report`, { token: agent, body: { status: 'completed' } });
    expect(rep.status).toBe(409);
    // A step already reached still reads the same (a GET is safe to repeat).
    expect((await server.rest.get(stepPath(bp.id, 1, run.stage_tokens[0]), { token: agent })).body).toEqual(step1);
    expect(await executionState(server, bp.id)).toEqual(state);
  });

  it('is abandoned when reported after the idle limit: 409, counted as abandoned, not failed', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Idle report' });
    const run = await startRun(server.rest, agent, bp.id);
    await age(server, run.run_id, IDLE_MS + 1000);
    const rep = await server.rest.post(`/api/executions/${run.run_id}/report`, { token: agent, body: { status: 'failed' } });
    expect(rep.status).toBe(409);
    expect(rep.body.error.details.status).toBe('abandoned');
    expect((await executionState(server, bp.id)).counters).toMatchObject({ executions_failed: 0, executions_abandoned: 1 });
  });

  it('stays running while steps keep coming within the limit', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Busy' });
    const run = await startRun(server.rest, agent, bp.id);
    let token = run.next_token;
    // Three steps, each after 0.6 of the idle limit: 1.8 limits in all, but never one without a step.
    for (let n = 1; n <= 3; n++) {
      await age(server, run.run_id, IDLE_MS * 0.6);
      const res = await server.rest.get(stepPath(bp.id, n, token), { token: agent });
      expect(res.status).toBe(200);
      token = res.body.next_token;
    }
    expect((await executionState(server, bp.id)).counters).toMatchObject({ executions_completed: 1, executions_abandoned: 0 });
  });
});

describe('the idle sweep', () => {
  let server: TestServer;
  let owner: string;
  beforeAll(async () => {
    server = await startTestServer({ limits: { executionIdleMs: IDLE_MS, executionSweepMs: 50 } });
    owner = await server.rest.agentToken('owner');
  });
  afterAll(() => server.close());

  it('abandons idle runs that nobody touches, so stats and cards count them; ended runs are left alone', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Swept' });
    const idle = [await startRun(server.rest, owner, bp.id), await startRun(server.rest, owner, bp.id)];
    const finished = await startRun(server.rest, owner, bp.id);
    await walkRun(server.rest, owner, bp.id, finished);
    for (const run of [...idle, finished]) await age(server, run.run_id, IDLE_MS + 1000);
    const stats = await statsOnceAbandoned(bp.id, 2);
    expect(stats).toEqual({ started: 3, completed: 1, failed: 0, abandoned: 2, running: 0, success_rate: 1 / 3 });
    const state = await executionState(server, bp.id);
    expect(
      state.runs
        .filter((r: any) => r.status === 'abandoned')
        .map((r: any) => r.id)
        .sort(),
    ).toEqual(idle.map((r) => r.run_id).sort());
    // Later sweeps count nothing twice: a run aged after the first sweep is swept by a later one, and only
    // it is added.
    await age(server, (await startRun(server.rest, owner, bp.id)).run_id, IDLE_MS + 1000);
    await statsOnceAbandoned(bp.id, 3);
    expect((await executionState(server, bp.id)).counters.executions_abandoned).toBe(3);
  });

  /** The blueprint's run stats once the sweep has abandoned `n` runs (the sweep runs every 50 ms). */
  async function statsOnceAbandoned(blueprintId: string, n: number): Promise<any> {
    for (;;) {
      const stats = (await server.rest.get(`/api/blueprints/${blueprintId}/executions`, { token: owner })).body.stats;
      if (stats.abandoned >= n) return stats;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
});
