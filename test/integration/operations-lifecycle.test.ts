import { randomUUID } from 'node:crypto';
import { createSubmissions } from '../fixtures/blueprints';
import {
  OPS,
  useOperationsServer,
  cancel,
  createAt,
  db,
  expectError,
  expectTokenStillValid,
  expectUntouched,
  owner,
  server,
  session,
  start,
  status,
  stranger,
  submit,
} from '../helpers/operations';
import { startTestServer, type TestServer } from '../helpers/server';
import { openSql } from '../helpers/sql';

useOperationsServer();

/** The tool-operation engine over REST: step tokens, lifecycle, expiry and access (docs/api.md). */

describe('step tokens', () => {
  it('rejects a wrong token with 409 STALE_STEP_TOKEN and changes nothing', async () => {
    const op = await createAt(1);
    for (const wrong of ['bwt_not-the-token', op.token.slice(0, -1), op.token + 'x'])
      expectError(await submit(owner.token, op.operation_id, wrong, createSubmissions()[0]), 409, 'STALE_STEP_TOKEN');
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  it('rejects a replayed (previous) token and changes nothing', async () => {
    const first = await createAt(1);
    const second = await expectTokenStillValid(first);
    const replay = await submit(owner.token, first.operation_id, first.token, createSubmissions()[1]);
    expectError(replay, 409, 'STALE_STEP_TOKEN');
    await expectUntouched(second);
    await expectTokenStillValid(second);
  });

  it('rejects the token of another operation and changes nothing in either', async () => {
    const a = await createAt(2);
    const b = await createAt(2);
    expectError(await submit(owner.token, a.operation_id, b.token, createSubmissions()[1]), 409, 'STALE_STEP_TOKEN');
    await expectUntouched(a);
    await expectUntouched(b);
    await expectTokenStillValid(a);
    await expectTokenStillValid(b);
  });

  it('lets exactly one of two concurrent submissions with one token win, round after round', async () => {
    for (let round = 0; round < 5; round++) {
      const op = await createAt(1);
      const mine = { modules: [{ key: `alpha-${round}`, name: 'Alpha', kind: 'service' }] };
      const theirs = { modules: [{ key: `beta-${round}`, name: 'Beta', kind: 'service' }] };
      const results = await Promise.all([submit(owner.token, op.operation_id, op.token, mine), submit(owner.token, op.operation_id, op.token, theirs)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const loser = results.find((r) => r.status === 409)!;
      expectError(loser, 409, 'STALE_STEP_TOKEN');
      const [winnerKey, loserKey] = results[0]!.status === 200 ? [`alpha-${round}`, `beta-${round}`] : [`beta-${round}`, `alpha-${round}`];
      const now = await status(owner.token, op.operation_id);
      expect(now.body).toMatchObject({ status: 'active', step: 2 });
      expect(now.body.prompt).toContain(`- ${winnerKey} (`);
      expect(now.body.prompt).not.toContain(loserKey);
    }
  });

  it('creates exactly one blueprint when the last submission races itself', async () => {
    const op = await createAt(5);
    const names = ['Race Winner A', 'Race Winner B'];
    const results = await Promise.all(names.map((name) => submit(owner.token, op.operation_id, op.token, { name, visibility: 'public' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    const stored = await db.rows('select id, name from blueprint where name = any($1)', [names]);
    expect(stored).toEqual([{ id: winner.body.result.blueprint_ids[0], name: names[results.indexOf(winner)] }]);
  });
});

describe('lifecycle', () => {
  it('answers a submission after completion with 409 CONFLICT and writes nothing', async () => {
    const op = await createAt(5);
    const done = await submit(owner.token, op.operation_id, op.token, createSubmissions()[4]);
    expect(done.status).toBe(200);
    const blueprints = await db.count('blueprint');
    expectError(await submit(owner.token, op.operation_id, op.token, createSubmissions()[4]), 409, 'CONFLICT');
    expectError(await submit(owner.token, op.operation_id, 'bwt_anything', createSubmissions()[4]), 409, 'CONFLICT');
    expect(await db.count('blueprint')).toBe(blueprints);
    expect((await status(owner.token, op.operation_id)).body).toMatchObject({ status: 'completed', done: true, result: done.body.result });
  });

  it('cancels idempotently and then refuses submissions with 409', async () => {
    const op = await createAt(3);
    const first = await cancel(owner.token, op.operation_id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      operation_id: op.operation_id,
      status: 'cancelled',
      step: null,
      done: false,
      result: null,
      prompt: null,
      submission_schema: null,
    });
    expect(first.body).not.toHaveProperty('token');
    const again = await cancel(owner.token, op.operation_id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'cancelled', updated_at: first.body.updated_at });
    expectError(await submit(owner.token, op.operation_id, op.token, createSubmissions()[2]), 409, 'CONFLICT');
    expect((await status(owner.token, op.operation_id)).body).toMatchObject({ status: 'cancelled', updated_at: first.body.updated_at });
  });

  it('refuses to cancel a completed operation with 409 and keeps its result', async () => {
    const op = await createAt(5);
    const done = await submit(owner.token, op.operation_id, op.token, createSubmissions()[4]);
    const res = await cancel(owner.token, op.operation_id);
    expectError(res, 409, 'CONFLICT');
    expect(res.body.error.details).toEqual({ status: 'completed' });
    expect((await status(owner.token, op.operation_id)).body).toMatchObject({ status: 'completed', result: done.body.result });
    expect((await server.rest.get(`/api/blueprints/${done.body.result.blueprint_ids[0]}`, { token: owner.token })).status).toBe(200);
  });
});

describe('expiry', () => {
  let idle: TestServer;
  let token: string;
  beforeAll(async () => {
    idle = await startTestServer({ limits: { operationIdleMs: 200 } });
    token = await idle.rest.agentToken();
  });
  afterAll(() => idle?.close());

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('expires an idle operation: status shows expired, submit and cancel are 409', async () => {
    const op = (await idle.rest.post(OPS, { token, body: { tool_type: 'create' } })).body;
    await pause(400);
    const now = await idle.rest.get(`${OPS}/${op.operation_id}`, { token });
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ status: 'expired', step: null, done: false, prompt: null, submission_schema: null });
    const res = await idle.rest.post(`${OPS}/${op.operation_id}/submit`, { token, body: { token: op.token, submission: createSubmissions()[0] } });
    expectError(res, 409, 'CONFLICT');
    expectError(await idle.rest.post(`${OPS}/${op.operation_id}/cancel`, { token }), 409, 'CONFLICT');
  });

  it('keeps the expiry found by a refused submission', async () => {
    const op = (await idle.rest.post(OPS, { token, body: { tool_type: 'create' } })).body;
    await pause(400);
    const res = await idle.rest.post(`${OPS}/${op.operation_id}/submit`, { token, body: { token: op.token, submission: createSubmissions()[0] } });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.error.details).toEqual({ status: 'expired' });
    const sql = await openSql(idle.databaseUrl);
    try {
      expect(await sql.rows('select status, token_hash from tool_operation where id = $1', [op.operation_id])).toEqual([
        { status: 'expired', token_hash: null },
      ]);
    } finally {
      await sql.close();
    }
  });
});

describe('access', () => {
  it('answers 404 to another agent for status, submit and cancel, and changes nothing', async () => {
    const op = await createAt(2);
    expectError(await status(stranger.token, op.operation_id), 404, 'NOT_FOUND');
    expectError(await submit(stranger.token, op.operation_id, op.token, createSubmissions()[1]), 404, 'NOT_FOUND');
    expectError(await cancel(stranger.token, op.operation_id), 404, 'NOT_FOUND');
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  it('answers 404 for an unknown or malformed operation id', async () => {
    for (const id of [randomUUID(), 'not-an-id']) {
      expectError(await status(owner.token, id), 404, 'NOT_FOUND');
      expectError(await submit(owner.token, id, 'bwt_x', createSubmissions()[0]), 404, 'NOT_FOUND');
      expectError(await cancel(owner.token, id), 404, 'NOT_FOUND');
    }
  });

  it('answers 401 to anonymous callers and writes nothing', async () => {
    const op = await createAt(1);
    const before = await db.count('tool_operation');
    expectError(await start(undefined, { tool_type: 'create' }), 401, 'UNAUTHENTICATED');
    expect(await db.count('tool_operation')).toBe(before);
    expectError(await status(undefined, op.operation_id), 401, 'UNAUTHENTICATED');
    expectError(await submit(undefined, op.operation_id, op.token, createSubmissions()[0]), 401, 'UNAUTHENTICATED');
    expectError(await cancel(undefined, op.operation_id), 401, 'UNAUTHENTICATED');
    await expectUntouched(op);
  });

  it('answers 401 to an unknown, malformed or expired bearer token and writes nothing', async () => {
    const expiring = await session('expiring');
    const started = await start(expiring.token, { tool_type: 'create' });
    expect(started.status).toBe(201);
    await db.rows(`update access_token set expires_at = now() - interval '1 minute' where principal_id = $1`, [expiring.id]);
    const before = await db.count('tool_operation');
    for (const token of ['bwa_unknown', expiring.token]) {
      expectError(await start(token, { tool_type: 'create' }), 401, 'UNAUTHENTICATED');
      expectError(await status(token, started.body.operation_id), 401, 'UNAUTHENTICATED');
      expectError(await submit(token, started.body.operation_id, started.body.token, createSubmissions()[0]), 401, 'UNAUTHENTICATED');
    }
    const malformed = await server.rest.post(OPS, { headers: { authorization: 'Token abc' }, body: { tool_type: 'create' } });
    expectError(malformed, 401, 'UNAUTHENTICATED');
    expect(await db.count('tool_operation')).toBe(before);
    expect(await db.rows('select step, status from tool_operation where id = $1', [started.body.operation_id])).toEqual([{ step: 1, status: 'active' }]);
  });
});
