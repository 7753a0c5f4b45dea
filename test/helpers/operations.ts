import Ajv from 'ajv';
import { createSubmissions } from '../fixtures/blueprints';
import type { AgentSession, RestResponse } from './rest';
import { startTestServer, type TestServer } from './server';
import { openSql, type SqlPeek } from './sql';

/**
 * Shared setup of the REST operation tests: one server per test file (registered by `useOperationsServer()`),
 * two agent sessions, and assertions on operations.
 */

export const OPS = '/api/tools/operations';
export const ajv = new Ajv({ strict: false, allErrors: true });

export let server: TestServer;
export let db: SqlPeek;
export let owner: Session;
export let stranger: Session;

export type Session = AgentSession;
export const session = (name: string): Promise<Session> => server.rest.agentSession(name);

/** Registers the file's hooks: a server, a SQL connection and two agent sessions (`owner`, `stranger`). */
export function useOperationsServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    db = await openSql(server.databaseUrl);
    [owner, stranger] = await Promise.all([session('owner'), session('stranger')]);
  });
  afterAll(async () => {
    await db?.close();
    await server?.close();
  });
}

export const start = (token: string | undefined, body: unknown) => server.rest.post(OPS, { token, body });
export const submit = (token: string | undefined, id: string, stepToken: unknown, submission: unknown) =>
  server.rest.post(`${OPS}/${id}/submit`, { token, body: { token: stepToken, submission } });
export const status = (token: string | undefined, id: string) => server.rest.get(`${OPS}/${id}`, { token });
export const cancel = (token: string | undefined, id: string) => server.rest.post(`${OPS}/${id}/cancel`, { token });

/** Starts a `create` operation as the owner and accepts its submissions up to (not including) `step`. */
export async function createAt(step: number, params: Record<string, unknown> = {}): Promise<any> {
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

export function expectError(res: RestResponse, httpStatus: number, code: string, path?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: httpStatus, code });
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.ts:\d+/); // never a stack trace
  if (path !== undefined) expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
}

/** Nothing was written: the operation is active at the same step, untouched since `op` was answered. */
export async function expectUntouched(op: any): Promise<void> {
  const now = await status(owner.token, op.operation_id);
  expect(now.status).toBe(200);
  expect(now.body).toMatchObject({ status: 'active', step: op.step, updated_at: op.updated_at, done: false });
}

/** The step token of `op` still works: the right submission for its step is accepted. */
export async function expectTokenStillValid(op: any): Promise<any> {
  const res = await submit(owner.token, op.operation_id, op.token, createSubmissions()[op.step - 1]);
  expect(res.status).toBe(200);
  expect(res.body.step).toBe(op.step + 1);
  return res.body;
}

export function expectSatisfies(schema: Record<string, unknown>, submission: unknown): void {
  expect(ajv.validateSchema(schema)).toBe(true);
  ajv.validate(schema, submission);
  expect(ajv.errors ?? []).toEqual([]);
}
