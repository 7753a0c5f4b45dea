import { randomUUID } from 'node:crypto';
import { createSubmissions } from '../fixtures/blueprints';
import {
  OPS,
  useOperationsServer,
  ajv,
  createAt,
  db,
  expectError,
  expectSatisfies,
  expectTokenStillValid,
  expectUntouched,
  owner,
  server,
  start,
  status,
  stranger,
  submit,
} from '../helpers/operations';

useOperationsServer();

/** The tool-operation engine and the `create` tool over REST: the flow and bad input (docs/api.md). */

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
      token: expect.stringMatching(/^bwt_/),
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
    expect(op).toMatchObject({
      status: 'completed',
      done: true,
      token: null,
      step: null,
      submission_schema: null,
      result: { blueprint_ids: [expect.any(String)] },
    });
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
    expect(after.body).toMatchObject({
      operation_id: op.operation_id,
      tool_type: 'create',
      status: 'completed',
      step: null,
      total_steps: 5,
      done: true,
      result: op.result,
    });
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
    const notJson = await server.rest.post(OPS, {
      token: owner.token,
      rawBody: 'tool_type=create',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(notJson, 400, 'VALIDATION_FAILED');
    const huge = JSON.stringify({ tool_type: 'create', params: { description: 'x'.repeat(1024 * 1024) } });
    expectError(await server.rest.post(OPS, { token: owner.token, rawBody: huge }), 413, 'PAYLOAD_TOO_LARGE');
    expect(await db.count('tool_operation')).toBe(before);
  });
});

describe('bad submissions', () => {
  it('rejects a missing or non-object submission and a missing step token, keeping step and token', async () => {
    const op = await createAt(1);
    expectError(
      await server.rest.post(`${OPS}/${op.operation_id}/submit`, { token: owner.token, body: { token: op.token } }),
      400,
      'VALIDATION_FAILED',
      'submission',
    );
    for (const submission of [[], 'modules', 42, null])
      expectError(await submit(owner.token, op.operation_id, op.token, submission), 400, 'VALIDATION_FAILED', 'submission');
    expectError(await submit(owner.token, op.operation_id, undefined, createSubmissions()[0]), 400, 'VALIDATION_FAILED', 'token');
    expectError(
      await server.rest.post(`${OPS}/${op.operation_id}/submit`, { token: owner.token, rawBody: `{"token":"${op.token}",` }),
      400,
      'VALIDATION_FAILED',
    );
    await expectUntouched(op);
    await expectTokenStillValid(op);
  });

  const moduleCases: Array<[string, unknown, string]> = [
    ['a key that is not kebab-case', { modules: [{ key: 'Not Kebab', name: 'X', kind: 'service' }] }, 'submission/modules/0/key'],
    ['a module without a name', { modules: [{ key: 'api', kind: 'service' }] }, 'submission/modules/0/name'],
    ['an unknown property', { modules: [{ key: 'api', name: 'API', kind: 'service', owner: 'me' }] }, 'submission/modules/0/owner'],
    ['no modules at all', { modules: [] }, 'submission/modules'],
    ['the wrong top-level field', { steps: [] }, 'submission/modules'],
    [
      'a duplicate module key',
      {
        modules: [
          { key: 'api', name: 'A', kind: 'service' },
          { key: 'api', name: 'B', kind: 'service' },
        ],
      },
      'submission/modules/1/key',
    ],
    [
      'a dependency on an unknown module',
      { modules: [{ key: 'api', name: 'A', kind: 'service', depends_on: ['ghost'] }] },
      'submission/modules/0/depends_on/0',
    ],
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
