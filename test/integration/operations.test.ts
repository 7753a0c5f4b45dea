import Ajv from 'ajv';
import { randomUUID } from 'node:crypto';
import { createSubmissions } from '../fixtures/blueprints';
import type { RestResponse } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { openSql, type SqlPeek } from '../helpers/sql';

/** The tool-operation engine and the `create` tool over REST (DESIGN.md sections 4, 5 and 8). */

const OPS = '/api/tools/operations';
const ajv = new Ajv({ strict: false, allErrors: true });

let server: TestServer;
let db: SqlPeek;
let owner: Session;
let stranger: Session;

interface Session {
  token: string;
  id: string;
}

async function session(name: string): Promise<Session> {
  const res = await server.rest.post('/api/agent/sessions', { body: { name } });
  expect(res.status).toBe(201);
  return { token: res.body.token, id: res.body.session_id };
}

beforeAll(async () => {
  server = await startTestServer();
  db = await openSql(server.databaseUrl);
  [owner, stranger] = await Promise.all([session('owner'), session('stranger')]);
});
afterAll(async () => {
  await db?.close();
  await server?.close();
});

const start = (token: string | undefined, body: unknown) => server.rest.post(OPS, { token, body });
const submit = (token: string | undefined, id: string, stepToken: unknown, submission: unknown) =>
  server.rest.post(`${OPS}/${id}/submit`, { token, body: { token: stepToken, submission } });
const status = (token: string | undefined, id: string) => server.rest.get(`${OPS}/${id}`, { token });
const cancel = (token: string | undefined, id: string) => server.rest.post(`${OPS}/${id}/cancel`, { token });

/** Starts a `create` operation as the owner and accepts its submissions up to (not including) `step`. */
async function createAt(step: number, params: Record<string, unknown> = {}): Promise<any> {
  const started = await start(owner.token, { tool_type: 'create', params });
  expect(started.status).toBe(201);
  let op = started.body;
  const submissions = createSubmissions();
  for (let i = 0; i < step - 1; i++) {
    const res = await submit(owner.token, op.operation_id, op.token, submissions[i]);
    expect(res.status).toBe(200);
    op = res.body;
  }
  return op;
}

function expectError(res: RestResponse, httpStatus: number, code: string, path?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: httpStatus, code });
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.ts:\d+/); // never a stack trace
  if (path !== undefined) expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
}

/** Nothing was written: the operation is active at the same step, untouched since `op` was answered. */
async function expectUntouched(op: any): Promise<void> {
  const now = await status(owner.token, op.operation_id);
  expect(now.status).toBe(200);
  expect(now.body).toMatchObject({ status: 'active', step: op.step, updated_at: op.updated_at, done: false });
}

/** The step token of `op` still works: the right submission for its step is accepted. */
async function expectTokenStillValid(op: any): Promise<any> {
  const res = await submit(owner.token, op.operation_id, op.token, createSubmissions()[op.step - 1]);
  expect(res.status).toBe(200);
  expect(res.body.step).toBe(op.step + 1);
  return res.body;
}

function expectSatisfies(schema: Record<string, unknown>, submission: unknown): void {
  expect(ajv.validateSchema(schema)).toBe(true);
  ajv.validate(schema, submission);
  expect(ajv.errors ?? []).toEqual([]);
}

describe('the create flow', () => {
  it('takes five schema-checked submissions and stores the blueprint with version 1', async () => {
    const started = await start(owner.token, {
      tool_type: 'create',
      params: { description: 'A to-do list service', language: 'typescript', framework: 'fastify' },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      operation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tool_type: 'create',
      status: 'active',
      step: 1,
      total_steps: 5,
      token: expect.stringMatching(/^bws_/),
      done: false,
      result: null,
    });
    expect(started.body.prompt).toContain('A to-do list service');
    expect(started.body.prompt).toContain('typescript');

    const submissions = [
      {
        modules: [
          { key: 'db', name: 'Database', kind: 'data', summary: 'PostgreSQL schema' },
          { key: 'api', name: 'API', kind: 'backend', summary: 'HTTP API', depends_on: ['db'] },
        ],
      },
      {
        steps: [
          { key: 'schema', module_key: 'db', title: 'Design the schema', instructions: 'Write migrations', acceptance: ['migrations apply'] },
          { key: 'routes', module_key: 'api', title: 'Build routes', instructions: 'CRUD for to-dos' },
        ],
      },
      { configuration: { framework: 'express', runtime: 'node', env: { PORT: '4000' } } },
      { design_system: { colors: { primary: '#3355ff' }, tone: 'plain' } },
      { name: 'To-do Service', description: 'Tasks over HTTP', tags: ['api', 'todo'], visibility: 'private' },
    ];
    const tokens = new Set<string>([started.body.token]);
    let op = started.body;
    for (const [i, submission] of submissions.entries()) {
      expect(op.step).toBe(i + 1);
      expect(typeof op.prompt).toBe('string');
      expectSatisfies(op.submission_schema, submission);
      expect(ajv.validate(op.submission_schema, {})).toBe(false); // the schema does constrain
      const res = await submit(owner.token, op.operation_id, op.token, submission);
      expect(res.status).toBe(200);
      op = res.body;
      if (i < 4) {
        expect(op).toMatchObject({ status: 'active', step: i + 2, done: false, result: null });
        expect(tokens.has(op.token)).toBe(false); // rotates on every submission
        tokens.add(op.token);
      }
    }
    expect(op).toMatchObject({ status: 'completed', done: true, token: null, step: null, submission_schema: null, result: { blueprint_ids: [expect.any(String)] } });
    const blueprintId = op.result.blueprint_ids[0];

    const bp = await server.rest.get(`/api/blueprints/${blueprintId}`, { token: owner.token });
    expect(bp.status).toBe(200);
    expect(bp.body).toMatchObject({
      id: blueprintId,
      slug: 'to-do-service',
      name: 'To-do Service',
      description: 'Tasks over HTTP',
      tags: ['api', 'todo'],
      visibility: 'private',
      owner_id: owner.id,
      forked_from: null,
      module_count: 2,
      step_count: 2,
      modules: [
        { key: 'db', name: 'Database', kind: 'data', summary: 'PostgreSQL schema', depends_on: [] },
        { key: 'api', name: 'API', kind: 'backend', summary: 'HTTP API', depends_on: ['db'] },
      ],
      steps: [
        { key: 'schema', module_key: 'db', title: 'Design the schema', instructions: 'Write migrations', acceptance: ['migrations apply'] },
        { key: 'routes', module_key: 'api', title: 'Build routes', instructions: 'CRUD for to-dos', acceptance: [] },
      ],
      // The submission wins over params; params fill in what it leaves out.
      configuration: { language: 'typescript', framework: 'express', runtime: 'node', env: { PORT: '4000' } },
      design_system: { colors: { primary: '#3355ff' }, tone: 'plain' },
    });
    const versions = await db.rows('select number, cause, author_id from blueprint_version where blueprint_id = $1', [blueprintId]);
    expect(versions).toEqual([{ number: 1, cause: 'create', author_id: owner.id }]);
    // Private: the owner sees it, nobody else does.
    expect((await server.rest.get(`/api/blueprints/${blueprintId}`, { token: stranger.token })).status).toBe(404);

    const after = await status(owner.token, op.operation_id);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ operation_id: op.operation_id, tool_type: 'create', status: 'completed', step: null, total_steps: 5, done: true, result: op.result });
    expect(after.body).not.toHaveProperty('token');
  });

  it('answers status with the documented fields and no token', async () => {
    const op = await createAt(2);
    const res = await status(owner.token, op.operation_id);
    expect(res.status).toBe(200);
    for (const field of ['operation_id', 'tool_type', 'status', 'step', 'total_steps', 'prompt', 'submission_schema', 'done', 'result'])
      expect(res.body).toHaveProperty(field);
    expect(res.body).not.toHaveProperty('token');
    expect(res.body).toMatchObject({ status: 'active', step: 2, prompt: op.prompt, submission_schema: op.submission_schema });
  });
});

describe('bad input at start', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a missing tool_type', { params: {} }, 'tool_type'],
    ['an unknown tool_type', { tool_type: 'teleport' }, 'tool_type'],
    ['a tool_type of the wrong type', { tool_type: 7 }, 'tool_type'],
    ['the wrong number of sources for the tool', { tool_type: 'breed', source_blueprint_ids: [randomUUID()] }, 'source_blueprint_ids'],
    ['params failing their schema', { tool_type: 'create', params: { language: 42 } }, 'params/language'],
    ['an unknown param', { tool_type: 'create', params: { colour: 'red' } }, 'params/colour'],
    ['params that are not an object', { tool_type: 'create', params: ['typescript'] }, 'params'],
    ['source ids given to create', { tool_type: 'create', source_blueprint_ids: [randomUUID()] }, 'source_blueprint_ids'],
    ['source ids that are not an array', { tool_type: 'create', source_blueprint_ids: 'abc' }, 'source_blueprint_ids'],
  ];
  it.each(cases)('rejects %s with 400 and writes nothing', async (_name, body, path) => {
    const before = await db.count('tool_operation');
    expectError(await start(owner.token, body), 400, 'VALIDATION_FAILED', path);
    expect(await db.count('tool_operation')).toBe(before);
  });

  it('rejects malformed JSON, a non-object body and an oversize body, and writes nothing', async () => {
    const before = await db.count('tool_operation');
    expectError(await server.rest.post(OPS, { token: owner.token, rawBody: '{"tool_type": "create",' }), 400, 'VALIDATION_FAILED');
    expectError(await server.rest.post(OPS, { token: owner.token, rawBody: '["create"]' }), 400, 'VALIDATION_FAILED');
    const notJson = await server.rest.post(OPS, { token: owner.token, rawBody: 'tool_type=create', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(notJson, 400, 'VALIDATION_FAILED');
    const huge = JSON.stringify({ tool_type: 'create', params: { description: 'x'.repeat(1024 * 1024) } });
    expectError(await server.rest.post(OPS, { token: owner.token, rawBody: huge }), 413, 'PAYLOAD_TOO_LARGE');
    expect(await db.count('tool_operation')).toBe(before);
  });
});

describe('bad submissions', () => {
  it('rejects a missing or non-object submission and a missing step token, keeping step and token', async () => {
    const op = await createAt(1);
    expectError(await server.rest.post(`${OPS}/${op.operation_id}/submit`, { token: owner.token, body: { token: op.token } }), 400, 'VALIDATION_FAILED', 'submission');
    for (const submission of [[], 'modules', 42, null])
      expectError(await submit(owner.token, op.operation_id, op.token, submission), 400, 'VALIDATION_FAILED', 'submission');
    expectError(await submit(owner.token, op.operation_id, undefined, createSubmissions()[0]), 400, 'VALIDATION_FAILED', 'token');
    expectError(await server.rest.post(`${OPS}/${op.operation_id}/submit`, { token: owner.token, rawBody: `{"token":"${op.token}",` }), 400, 'VALIDATION_FAILED');
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  const moduleCases: Array<[string, unknown, string]> = [
    ['a key that is not kebab-case', { modules: [{ key: 'Not Kebab', name: 'X', kind: 'service' }] }, 'submission/modules/0/key'],
    ['a module without a name', { modules: [{ key: 'api', kind: 'service' }] }, 'submission/modules/0/name'],
    ['an unknown property', { modules: [{ key: 'api', name: 'API', kind: 'service', owner: 'me' }] }, 'submission/modules/0/owner'],
    ['no modules at all', { modules: [] }, 'submission/modules'],
    ['the wrong top-level field', { steps: [] }, 'submission/modules'],
    ['a duplicate module key', { modules: [{ key: 'api', name: 'A', kind: 'service' }, { key: 'api', name: 'B', kind: 'service' }] }, 'submission/modules/1/key'],
    ['a dependency on an unknown module', { modules: [{ key: 'api', name: 'A', kind: 'service', depends_on: ['ghost'] }] }, 'submission/modules/0/depends_on/0'],
    [
      'a dependency cycle',
      {
        modules: [
          { key: 'a', name: 'A', kind: 'service', depends_on: ['c'] },
          { key: 'b', name: 'B', kind: 'service', depends_on: ['a'] },
          { key: 'c', name: 'C', kind: 'service', depends_on: ['b'] },
        ],
      },
      'submission/modules',
    ],
  ];
  it.each(moduleCases)('rejects modules with %s, naming the path, and changes nothing', async (_name, submission, path) => {
    const op = await createAt(1);
    expectError(await submit(owner.token, op.operation_id, op.token, submission), 400, 'VALIDATION_FAILED', path);
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  it('rejects a step naming an unknown module and a duplicate step key, and changes nothing', async () => {
    const op = await createAt(2);
    const ghost = { steps: [{ key: 'ghost-step', module_key: 'ghost', title: 'Haunt', instructions: 'Boo' }] };
    expectError(await submit(owner.token, op.operation_id, op.token, ghost), 400, 'VALIDATION_FAILED', 'submission/steps/0/module_key');
    const twice = { steps: [0, 1].map(() => ({ key: 'same', module_key: 'db', title: 'T', instructions: 'I' })) };
    expectError(await submit(owner.token, op.operation_id, op.token, twice), 400, 'VALIDATION_FAILED', 'submission/steps/1/key');
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  it('rejects a bad configuration, design system and final step by their schemas, and changes nothing', async () => {
    let op = await createAt(3);
    expectError(await submit(owner.token, op.operation_id, op.token, { configuration: 'node' }), 400, 'VALIDATION_FAILED', 'submission/configuration');
    await expectUntouched(op);
    op = await expectTokenStillValid(op);
    expectError(await submit(owner.token, op.operation_id, op.token, { design_system: [] }), 400, 'VALIDATION_FAILED', 'submission/design_system');
    await expectUntouched(op);
    op = await expectTokenStillValid(op);
    const blueprints = await db.count('blueprint');
    for (const [submission, path] of [
      [{ name: 'N', visibility: 'secret' }, 'submission/visibility'],
      [{ name: '   ', visibility: 'public' }, 'submission/name'],
      [{ name: 'N', visibility: 'public', tags: ['Not A Tag'] }, 'submission/tags/0'],
      [{ visibility: 'public' }, 'submission/name'],
    ] as const) {
      expectError(await submit(owner.token, op.operation_id, op.token, submission), 400, 'VALIDATION_FAILED', path);
    }
    expect(await db.count('blueprint')).toBe(blueprints);
    await expectUntouched(op);
    const done = await submit(owner.token, op.operation_id, op.token, createSubmissions()[4]);
    expect(done.body).toMatchObject({ status: 'completed', done: true });
    expect(await db.count('blueprint')).toBe(blueprints + 1);
  });

  it('refuses the submission that makes the plan bigger than its bound, naming it, and keeps the operation usable', async () => {
    let op = await createAt(3);
    const filler = (kb: number) => ({ notes: 'x'.repeat(kb * 1024) });
    const accepted = await submit(owner.token, op.operation_id, op.token, { configuration: filler(600) });
    expect(accepted.status).toBe(200);
    op = accepted.body;
    expectError(await submit(owner.token, op.operation_id, op.token, { design_system: filler(600) }), 400, 'VALIDATION_FAILED', 'submission/design_system');
    await expectUntouched(op);
    op = await expectTokenStillValid(op);
    const done = await submit(owner.token, op.operation_id, op.token, createSubmissions()[4]);
    expect(done.body).toMatchObject({ status: 'completed', done: true });
  });

  it('rejects a submission over 1 MiB with 413 and changes nothing', async () => {
    const op = await createAt(1);
    const body = JSON.stringify({ token: op.token, submission: { modules: [{ key: 'big', name: 'x'.repeat(1024 * 1024), kind: 'service' }] } });
    expectError(await server.rest.post(`${OPS}/${op.operation_id}/submit`, { token: owner.token, rawBody: body }), 413, 'PAYLOAD_TOO_LARGE');
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });
});

describe('step tokens', () => {
  it('rejects a wrong token with 409 STALE_STEP_TOKEN and changes nothing', async () => {
    const op = await createAt(1);
    for (const wrong of ['bws_not-the-token', op.token.slice(0, -1), op.token + 'x'])
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

  it("rejects the token of another operation and changes nothing in either", async () => {
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
    expectError(await submit(owner.token, op.operation_id, 'bws_anything', createSubmissions()[4]), 409, 'CONFLICT');
    expect(await db.count('blueprint')).toBe(blueprints);
    expect((await status(owner.token, op.operation_id)).body).toMatchObject({ status: 'completed', done: true, result: done.body.result });
  });

  it('cancels idempotently and then refuses submissions with 409', async () => {
    const op = await createAt(3);
    const first = await cancel(owner.token, op.operation_id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ operation_id: op.operation_id, status: 'cancelled', step: null, done: false, result: null, prompt: null, submission_schema: null });
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
      expect(await sql.rows('select status, token_hash from tool_operation where id = $1', [op.operation_id])).toEqual([{ status: 'expired', token_hash: null }]);
    } finally {
      await sql.close();
    }
  });
});

describe('access', () => {
  it("answers 404 to another agent for status, submit and cancel, and changes nothing", async () => {
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
      expectError(await submit(owner.token, id, 'bws_x', createSubmissions()[0]), 404, 'NOT_FOUND');
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
