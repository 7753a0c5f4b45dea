import Ajv from 'ajv';
import { randomUUID } from 'node:crypto';
import { createSubmissions } from '../fixtures/blueprints';
import {
  BlueprintByIdDocument,
  CancelToolOperationDocument,
  OperationDocument,
  OperationUpdatedDocument,
  StartToolOperationDocument,
  SubmitToolStepDocument,
  type OperationFieldsFragment,
  type StartToolOperationInput,
} from '../generated/graphql';
import type { GraphQLResult } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { openSql, type SqlPeek } from '../helpers/sql';
import { connectWs, type Subscription, type WsClient } from '../helpers/ws';

/** The tool-operation engine and the `create` tool over GraphQL and graphql-ws (docs/api.md). */

const ajv = new Ajv({ strict: false, allErrors: true });

let server: TestServer;
let db: SqlPeek;
let owner: { token: string; id: string };
let stranger: { token: string; id: string };
const sockets: WsClient[] = [];

const session = (name: string) => server.rest.agentSession(name);

beforeAll(async () => {
  server = await startTestServer();
  db = await openSql(server.databaseUrl);
  [owner, stranger] = await Promise.all([session('owner'), session('stranger')]);
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await db?.close();
  await server?.close();
});

function ws(token?: string): WsClient {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client;
}

const startOp = (input: StartToolOperationInput, token: string | undefined = owner.token) => server.gql.request(StartToolOperationDocument, { input }, token);
const submitOp = (operationId: string, stepToken: string, submission: Record<string, any>, token: string | undefined = owner.token) =>
  server.gql.request(SubmitToolStepDocument, { operationId, token: stepToken, submission }, token);
const cancelOp = (operationId: string, token: string | undefined = owner.token) => server.gql.request(CancelToolOperationDocument, { operationId }, token);
const readOp = async (id: string, token: string = owner.token) => (await server.gql.ok(OperationDocument, { id }, token)).operation;

/** Starts a `create` operation as the owner and accepts its submissions up to (not including) `step`. */
async function createAt(step: number): Promise<OperationFieldsFragment> {
  let op = (await server.gql.ok(StartToolOperationDocument, { input: { toolType: 'CREATE' } }, owner.token)).startToolOperation;
  for (const submission of createSubmissions().slice(0, step - 1))
    op = (await server.gql.ok(SubmitToolStepDocument, { operationId: op.id, token: op.token!, submission }, owner.token)).submitToolStep;
  return op;
}

function expectError(result: GraphQLResult<unknown>, code: string, path?: string): void {
  expect(result.errors?.map((e) => e.extensions?.code)).toEqual([code]);
  expect(result.data ?? null).toBeNull();
  if (path !== undefined) expect(result.errors![0]!.extensions!.details.issues.map((i: { path: string }) => i.path)).toContain(path);
}

/** Nothing was written and the operation's step token is still the one that works. */
async function expectUntouchedAndLive(op: OperationFieldsFragment): Promise<OperationFieldsFragment> {
  const [row] = await db.rows('select step, status, updated_at from tool_operation where id = $1', [op.id]);
  expect(row).toMatchObject({ step: op.step, status: 'active' });
  const next = await submitOp(op.id, op.token!, createSubmissions()[op.step! - 1]!);
  expect(next.errors).toBeUndefined();
  expect(next.data!.submitToolStep.step).toBe(op.step! + 1);
  return next.data!.submitToolStep;
}

describe('the create flow over GraphQL', () => {
  it('takes five schema-checked submissions and stores the blueprint with version 1', async () => {
    const started = await startOp({ toolType: 'CREATE', params: { language: 'go', framework: 'chi', description: 'A URL shortener' } });
    expect(started.errors).toBeUndefined();
    let op = started.data!.startToolOperation;
    expect(op).toMatchObject({
      toolType: 'CREATE',
      status: 'ACTIVE',
      step: 1,
      totalSteps: 5,
      done: false,
      result: null,
      token: expect.stringMatching(/^bwt_/),
    });
    const submissions = createSubmissions({
      modules: [
        { key: 'store', name: 'Store', kind: 'data' },
        { key: 'http', name: 'HTTP', kind: 'backend', summary: 'Redirects', depends_on: ['store'] },
      ],
      steps: [
        { key: 'tables', module_key: 'store', acceptance: ['tables exist'] },
        { key: 'redirect', module_key: 'http' },
      ],
      configuration: { database: 'postgres', language: 'golang' },
      design_system: {},
      name: 'Short Links',
      tags: ['cli', 'api'],
      visibility: 'public',
    });
    for (const [i, submission] of submissions.entries()) {
      expect(op.step).toBe(i + 1);
      expect(ajv.validateSchema(op.submissionSchema!)).toBe(true);
      ajv.validate(op.submissionSchema!, submission);
      expect(ajv.errors ?? []).toEqual([]);
      const res = await submitOp(op.id, op.token!, submission);
      expect(res.errors).toBeUndefined();
      expect(res.data!.submitToolStep.token).not.toBe(op.token);
      op = res.data!.submitToolStep;
    }
    expect(op).toMatchObject({ status: 'COMPLETED', done: true, token: null, step: null, submissionSchema: null });
    const blueprintId = op.result!.blueprint_ids[0] as string;

    const { blueprint } = await server.gql.ok(BlueprintByIdDocument, { id: blueprintId }, owner.token);
    expect(blueprint).toMatchObject({
      id: blueprintId,
      slug: 'short-links',
      name: 'Short Links',
      tags: ['cli', 'api'],
      visibility: 'PUBLIC',
      owner: { id: owner.id },
      moduleCount: 2,
      stepCount: 2,
      modules: [
        { key: 'store', name: 'Store', kind: 'data', summary: '', dependsOn: [] },
        { key: 'http', name: 'HTTP', kind: 'backend', summary: 'Redirects', dependsOn: ['store'] },
      ],
      steps: [
        { key: 'tables', moduleKey: 'store', acceptance: ['tables exist'] },
        { key: 'redirect', moduleKey: 'http', acceptance: [] },
      ],
      configuration: { language: 'golang', framework: 'chi', database: 'postgres' },
      designSystem: {},
    });
    expect(await db.rows('select number, cause from blueprint_version where blueprint_id = $1', [blueprintId])).toEqual([{ number: 1, cause: 'create' }]);

    expect(await readOp(op.id)).toMatchObject({ status: 'COMPLETED', done: true, token: null, result: op.result });
  });

  it('answers operation(id) with the current step and never a token', async () => {
    const op = await createAt(3);
    expect(await readOp(op.id)).toEqual({ ...op, token: null });
  });
});

describe('bad input over GraphQL', () => {
  const startCases: Array<[string, StartToolOperationInput, string | undefined]> = [
    ['an unknown tool type', { toolType: 'TELEPORT' as never }, undefined],
    ['the wrong number of sources for the tool', { toolType: 'BREED', sourceBlueprintIds: [randomUUID()] }, 'source_blueprint_ids'],
    ['params failing their schema', { toolType: 'CREATE', params: { language: 42 } }, 'params/language'],
    ['source ids given to create', { toolType: 'CREATE', sourceBlueprintIds: [randomUUID()] }, 'source_blueprint_ids'],
  ];
  it.each(startCases)('rejects a start with %s as VALIDATION_FAILED and writes nothing', async (_name, input, path) => {
    const before = await db.count('tool_operation');
    const res = await startOp(input);
    expectError(res, 'VALIDATION_FAILED', path);
    if (path === undefined) expect(res.status).toBe(400); // refused while coercing variables: no partial data, so 400
    expect(await db.count('tool_operation')).toBe(before);
  });

  it('rejects submissions breaking the schema or a plan rule, naming the path, and changes nothing', async () => {
    const op = await createAt(1);
    const cases: Array<[Record<string, any>, string]> = [
      [{ modules: [{ key: 'Bad Key', name: 'X', kind: 'service' }] }, 'submission/modules/0/key'],
      [
        {
          modules: [
            { key: 'a', name: 'A', kind: 'service' },
            { key: 'a', name: 'B', kind: 'service' },
          ],
        },
        'submission/modules/1/key',
      ],
      [{ modules: [{ key: 'a', name: 'A', kind: 'service', depends_on: ['nowhere'] }] }, 'submission/modules/0/depends_on/0'],
      [
        {
          modules: [
            { key: 'a', name: 'A', kind: 'service', depends_on: ['b'] },
            { key: 'b', name: 'B', kind: 'service', depends_on: ['a'] },
          ],
        },
        'submission/modules',
      ],
    ];
    for (const [submission, path] of cases) expectError(await submitOp(op.id, op.token!, submission), 'VALIDATION_FAILED', path);
    // Not an object: refused by the JSONObject scalar before the service runs.
    const notAnObject = await submitOp(op.id, op.token!, [] as never);
    expectError(notAnObject, 'VALIDATION_FAILED');
    expect(notAnObject.status).toBe(400);
    await expectUntouchedAndLive(op);
  });

  it('rejects a step naming an unknown module and changes nothing', async () => {
    const op = await createAt(2);
    const ghost = { steps: [{ key: 's', module_key: 'ghost', title: 'T', instructions: 'I' }] };
    expectError(await submitOp(op.id, op.token!, ghost), 'VALIDATION_FAILED', 'submission/steps/0/module_key');
    await expectUntouchedAndLive(op);
  });

  it('rejects a submission over 1 MiB with 413 PAYLOAD_TOO_LARGE and changes nothing', async () => {
    const op = await createAt(1);
    const res = await server.rest.post('/graphql', {
      token: owner.token,
      body: {
        query: 'mutation($id: ID!, $t: String!, $s: JSONObject!) { submitToolStep(operationId: $id, token: $t, submission: $s) { id } }',
        variables: { id: op.id, t: op.token, s: { modules: [{ key: 'big', name: 'x'.repeat(1024 * 1024), kind: 'service' }] } },
      },
    });
    expect(res.status).toBe(413);
    // /graphql answers in the GraphQL error shape, even before the body is parsed.
    expect(res.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    await expectUntouchedAndLive(op);
  });
});

describe('step tokens over GraphQL', () => {
  it('rejects wrong, replayed and foreign tokens with STALE_STEP_TOKEN and changes nothing', async () => {
    const first = await createAt(1);
    const other = await createAt(2);
    expectError(await submitOp(first.id, 'bwt_wrong', createSubmissions()[0]!), 'STALE_STEP_TOKEN');
    expectError(await submitOp(first.id, other.token!, createSubmissions()[0]!), 'STALE_STEP_TOKEN');
    const second = await expectUntouchedAndLive(first);
    expectError(await submitOp(first.id, first.token!, createSubmissions()[1]!), 'STALE_STEP_TOKEN');
    await expectUntouchedAndLive(second);
    await expectUntouchedAndLive(other);
  });

  it('lets exactly one of two concurrent submissions with one token win, round after round', async () => {
    for (let round = 0; round < 5; round++) {
      const op = await createAt(1);
      const results = await Promise.all([submitOp(op.id, op.token!, createSubmissions()[0]!), submitOp(op.id, op.token!, createSubmissions()[0]!)]);
      expect(results.map((r) => (r.errors ? r.errors[0]!.extensions!.code : 'OK')).sort()).toEqual(['OK', 'STALE_STEP_TOKEN']);
      expect((await readOp(op.id))!.step).toBe(2);
    }
  });
});

describe('lifecycle over GraphQL', () => {
  it('cancels idempotently, then refuses submissions with CONFLICT', async () => {
    const op = await createAt(2);
    const first = await cancelOp(op.id);
    expect(first.data!.cancelToolOperation).toMatchObject({ status: 'CANCELLED', step: null, done: false, token: null });
    const again = await cancelOp(op.id);
    expect(again.errors).toBeUndefined();
    expect(again.data!.cancelToolOperation.status).toBe('CANCELLED');
    expectError(await submitOp(op.id, op.token!, createSubmissions()[1]!), 'CONFLICT');
    expect((await readOp(op.id))!.status).toBe('CANCELLED');
  });

  it('refuses to cancel or resubmit a completed operation with CONFLICT and writes nothing', async () => {
    const op = await createAt(5);
    const done = (await submitOp(op.id, op.token!, createSubmissions()[4]!)).data!.submitToolStep;
    const blueprints = await db.count('blueprint');
    expectError(await cancelOp(op.id), 'CONFLICT');
    expectError(await submitOp(op.id, op.token!, createSubmissions()[4]!), 'CONFLICT');
    expect(await db.count('blueprint')).toBe(blueprints);
    expect(await readOp(op.id)).toMatchObject({ status: 'COMPLETED', result: done.result });
  });
});

describe('access over GraphQL', () => {
  it("hides another agent's operation: null to read, NOT_FOUND to submit or cancel, nothing changed", async () => {
    const op = await createAt(2);
    expect(await readOp(op.id, stranger.token)).toBeNull();
    expectError(await submitOp(op.id, op.token!, createSubmissions()[1]!, stranger.token), 'NOT_FOUND');
    expectError(await cancelOp(op.id, stranger.token), 'NOT_FOUND');
    expect(await readOp(randomUUID())).toBeNull();
    await expectUntouchedAndLive(op);
  });

  it('refuses anonymous, unknown and expired bearer tokens and writes nothing', async () => {
    const expiring = await session('expiring');
    await db.rows(`update access_token set expires_at = now() - interval '1 minute' where principal_id = $1`, [expiring.id]);
    const before = await db.count('tool_operation');
    expectError(await startOp({ toolType: 'CREATE' }, ''), 'UNAUTHENTICATED'); // '' sends no Authorization header
    for (const token of ['bwa_unknown', expiring.token]) {
      const res = await startOp({ toolType: 'CREATE' }, token);
      expect(res.status).toBe(401);
      expectError(res, 'UNAUTHENTICATED');
    }
    expect(await db.count('tool_operation')).toBe(before);
  });
});

describe('operationUpdated over graphql-ws', () => {
  async function nextUpdate(sub: Subscription<any>) {
    const result = await sub.next();
    expect(result.errors).toBeUndefined();
    return result.data!.operationUpdated;
  }
  async function completes<T>(sub: Subscription<T>): Promise<boolean> {
    for (let i = 0; i < 50 && !sub.completed; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    return sub.completed;
  }

  it('sends the owner the current state, then one event per submission, and ends on completion', async () => {
    const op = await createAt(1);
    const sub = ws(owner.token).subscribe(OperationUpdatedDocument, { id: op.id });
    expect(await nextUpdate(sub)).toEqual({ id: op.id, status: 'ACTIVE', step: 1, done: false, token: null, result: null });
    let token = op.token!;
    for (const [i, submission] of createSubmissions().entries()) {
      const res = await server.gql.ok(SubmitToolStepDocument, { operationId: op.id, token, submission }, owner.token);
      token = res.submitToolStep.token!;
      const update = await nextUpdate(sub);
      if (i < 4) expect(update).toEqual({ id: op.id, status: 'ACTIVE', step: i + 2, done: false, token: null, result: null });
      else expect(update).toMatchObject({ status: 'COMPLETED', step: null, done: true, token: null, result: { blueprint_ids: [expect.any(String)] } });
    }
    expect(await completes(sub)).toBe(true);
  });

  it('sends the owner an event for cancel and ends there', async () => {
    const op = await createAt(2);
    const sub = ws(owner.token).subscribe(OperationUpdatedDocument, { id: op.id });
    expect(await nextUpdate(sub)).toMatchObject({ status: 'ACTIVE', step: 2 });
    await server.gql.ok(CancelToolOperationDocument, { operationId: op.id }, owner.token);
    expect(await nextUpdate(sub)).toMatchObject({ status: 'CANCELLED', step: null, done: false });
    expect(await completes(sub)).toBe(true);
    // Cancelling again changes nothing, so it is not an event.
    await server.gql.ok(CancelToolOperationDocument, { operationId: op.id }, owner.token);
    expect(await sub.nothingWithin(200)).toBe(true);
  });

  it('ignores changes of other operations', async () => {
    const watched = await createAt(1);
    const busy = await createAt(1);
    const sub = ws(owner.token).subscribe(OperationUpdatedDocument, { id: watched.id });
    expect(await nextUpdate(sub)).toMatchObject({ id: watched.id, step: 1 });
    await server.gql.ok(SubmitToolStepDocument, { operationId: busy.id, token: busy.token!, submission: createSubmissions()[0]! }, owner.token);
    await server.gql.ok(CancelToolOperationDocument, { operationId: busy.id }, owner.token);
    expect(await sub.nothingWithin(300)).toBe(true);
    await server.gql.ok(SubmitToolStepDocument, { operationId: watched.id, token: watched.token!, submission: createSubmissions()[0]! }, owner.token);
    expect(await nextUpdate(sub)).toMatchObject({ id: watched.id, step: 2 });
  });

  it('answers a finished operation with its state and ends', async () => {
    const op = await createAt(2);
    await server.gql.ok(CancelToolOperationDocument, { operationId: op.id }, owner.token);
    const sub = ws(owner.token).subscribe(OperationUpdatedDocument, { id: op.id });
    expect(await nextUpdate(sub)).toMatchObject({ status: 'CANCELLED' });
    expect(await completes(sub)).toBe(true);
  });

  it('refuses another agent with NOT_FOUND and sends it no events', async () => {
    const op = await createAt(1);
    const sub = ws(stranger.token).subscribe(OperationUpdatedDocument, { id: op.id });
    const first = await sub.next();
    expect(first.data ?? null).toBeNull();
    expect(first.errors?.map((e) => (e as { extensions?: { code?: string } }).extensions?.code)).toEqual(['NOT_FOUND']);
    await server.gql.ok(SubmitToolStepDocument, { operationId: op.id, token: op.token!, submission: createSubmissions()[0]! }, owner.token);
    await server.gql.ok(CancelToolOperationDocument, { operationId: op.id }, owner.token);
    expect(await sub.nothingWithin(300)).toBe(true);
  });

  it('refuses an anonymous subscriber with UNAUTHENTICATED', async () => {
    const op = await createAt(1);
    const sub = ws().subscribe(OperationUpdatedDocument, { id: op.id });
    const first = await sub.next();
    expect(first.errors?.map((e) => (e as { extensions?: { code?: string } }).extensions?.code)).toEqual(['UNAUTHENTICATED']);
  });
});
