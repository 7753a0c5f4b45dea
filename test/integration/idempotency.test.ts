import { request as httpRequest } from 'node:http';
import { createBlueprint, createSubmissions } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { query } from '../helpers/sql';

/**
 * `Idempotency-Key` on the POSTs that create things. A retry with the same key and
 * body replays the first answer and writes nothing; the key and the effect commit in one transaction.
 */
jest.setTimeout(60_000);

let server: TestServer;
let owner: { token: string; id: string };
let forker: { token: string; id: string };
let source: any;

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentSession('owner');
  forker = await server.rest.agentSession('forker');
  source = await createBlueprint(server.rest, owner.token, { name: 'Idempotent source' });
});

afterAll(async () => {
  await server?.close();
});

const forksOf = async (principalId: string): Promise<number> =>
  Number((await query(server.databaseUrl, 'select count(*)::int as n from blueprint where owner_id = $1', [principalId]))[0]!.n);

const keyRows = async (): Promise<number> => Number((await query(server.databaseUrl, 'select count(*)::int as n from idempotency_key'))[0]!.n);

/** Sends a POST and hangs up as soon as the request is written: the answer is lost on the way back. */
function sendAndHangUp(path: string, token: string, key: string): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': key } });
    req.on('error', () => resolve());
    req.end(() => {
      req.destroy();
      resolve();
    });
  });
}

describe('Idempotency-Key', () => {
  it('a lost answer is retried: the retry replays the first answer and exactly one blueprint exists', async () => {
    const before = await forksOf(forker.id);
    await sendAndHangUp(`/api/blueprints/${source.id}/fork`, forker.token, 'lost-answer-1');
    // The server finished and committed the fork although nobody read its answer.
    for (let tries = 0; (await query(server.databaseUrl, `select 1 from idempotency_key where key = 'lost-answer-1'`)).length === 0; tries++) {
      if (tries > 100) throw new Error('the hung-up request was never committed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await forksOf(forker.id)).toBe(before + 1);
    const retried = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'lost-answer-1' } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const again = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'lost-answer-1' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retried.body);
    expect(await forksOf(forker.id)).toBe(before + 1);
    expect((await server.rest.get(`/api/blueprints/${retried.body.id}`, { token: forker.token })).status).toBe(200);
  });

  it('a concurrent double-send with one key creates one thing and both answers are the same', async () => {
    const before = await forksOf(forker.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'double-send' } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(await forksOf(forker.id)).toBe(before + 1);
  });

  it('the same key with another body is 409 CONFLICT and writes nothing', async () => {
    const first = await server.rest.post('/api/architectures', {
      token: owner.token,
      headers: { 'idempotency-key': 'arch-1' },
      body: { name: 'First', visibility: 'public' },
    });
    expect(first.status).toBe(201);
    const replay = await server.rest.post('/api/architectures', {
      token: owner.token,
      headers: { 'idempotency-key': 'arch-1' },
      body: { name: 'First', visibility: 'public' },
    });
    expect(replay.body).toEqual(first.body);
    const other = await server.rest.post('/api/architectures', {
      token: owner.token,
      headers: { 'idempotency-key': 'arch-1' },
      body: { name: 'Second', visibility: 'public' },
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');
    const names = await query(server.databaseUrl, 'select name from architecture where owner_id = $1', [owner.id]);
    expect(names.map((r) => r.name)).toEqual(['First']);
  });

  it('keys are per principal: another caller with the same key gets its own fork', async () => {
    const other = await server.rest.agentSession('other forker');
    const mine = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'shared-key' } });
    const theirs = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: other.token, headers: { 'idempotency-key': 'shared-key' } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an error answer is not kept: nothing was written, and the key can run again', async () => {
    const rows = await keyRows();
    const missing = await server.rest.post('/api/blueprints/00000000-0000-4000-8000-000000000000/fork', {
      token: forker.token,
      headers: { 'idempotency-key': 'after-404' },
    });
    expect(missing.status).toBe(404);
    expect(await keyRows()).toBe(rows);
    const works = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'after-404' } });
    expect(works.status).toBe(201);
  });

  it('an expired key runs again', async () => {
    const before = await forksOf(forker.id);
    const first = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'expiring' } });
    await query(server.databaseUrl, `update idempotency_key set expires_at = now() - interval '1 second' where key = 'expiring'`);
    const second = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'expiring' } });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(await forksOf(forker.id)).toBe(before + 2);
  });

  it('covers starting an operation and submitting a step: a replayed submit is not a stale token', async () => {
    const headers = { 'idempotency-key': 'start-op' };
    const started = await server.rest.post('/api/tools/operations', { token: owner.token, headers, body: { tool_type: 'create', params: {} } });
    expect(started.status).toBe(201);
    const replayed = await server.rest.post('/api/tools/operations', { token: owner.token, headers, body: { tool_type: 'create', params: {} } });
    expect(replayed.body.operation_id).toBe(started.body.operation_id);
    const submitHeaders = { 'idempotency-key': 'submit-1' };
    const body = { token: started.body.token, submission: createSubmissions()[0] };
    const submitted = await server.rest.post(`/api/tools/operations/${started.body.operation_id}/submit`, { token: owner.token, headers: submitHeaders, body });
    expect(submitted.status).toBe(200);
    const resubmitted = await server.rest.post(`/api/tools/operations/${started.body.operation_id}/submit`, {
      token: owner.token,
      headers: submitHeaders,
      body,
    });
    expect(resubmitted.status).toBe(200);
    expect(resubmitted.body).toEqual(submitted.body);
    // Without the key the same submission is the replayed token it is.
    expect((await server.rest.post(`/api/tools/operations/${started.body.operation_id}/submit`, { token: owner.token, body })).status).toBe(409);
  });

  it('covers broadcasts and nodes; without a key nothing changes (two sends, two broadcasts)', async () => {
    const msg = { message: 'hello', type: 'notice', severity: 'info' };
    const path = `/api/blueprints/${source.id}/broadcasts`;
    const a = await server.rest.post(path, { token: owner.token, headers: { 'idempotency-key': 'bc' }, body: msg });
    const b = await server.rest.post(path, { token: owner.token, headers: { 'idempotency-key': 'bc' }, body: msg });
    expect(b.body).toEqual(a.body);
    await server.rest.post(path, { token: owner.token, body: msg });
    await server.rest.post(path, { token: owner.token, body: msg });
    const count = await query(server.databaseUrl, `select count(*)::int as n from broadcast where message = 'hello'`);
    expect(count[0]!.n).toBe(3);

    const arch = await server.rest.post('/api/architectures', { token: owner.token, body: { name: 'Nodes', visibility: 'public' } });
    const nodePath = `/api/architectures/${arch.body.slug}/nodes`;
    const n1 = await server.rest.post(nodePath, { token: owner.token, headers: { 'idempotency-key': 'node' }, body: { blueprint_id: source.id } });
    const n2 = await server.rest.post(nodePath, { token: owner.token, headers: { 'idempotency-key': 'node' }, body: { blueprint_id: source.id } });
    expect(n1.status).toBe(201);
    expect(n2.body).toEqual(n1.body);
    expect((await server.rest.get(`/api/architectures/${arch.body.slug}`)).body.nodes).toHaveLength(1);
  });

  it('refuses a malformed key with 400 VALIDATION_FAILED', async () => {
    const res = await server.rest.post(`/api/blueprints/${source.id}/fork`, { token: forker.token, headers: { 'idempotency-key': 'x'.repeat(201) } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});
