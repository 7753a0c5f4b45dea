import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { OperationUpdatedDocument } from '../generated/graphql';
import { createSubmissions } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { query, withPg } from '../helpers/sql';
import { closeCodeFor, connectionOutcome, connectWs } from '../helpers/ws';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function startCreate(token: string) {
  const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'create', params: {} } });
  expect(res.status).toBe(201);
  return res.body as { operation_id: string; token: string; step: number };
}

describe('graphql-ws connection auth', () => {
  it('acknowledges an anonymous connection and one with a valid token (with or without "Bearer ")', async () => {
    const token = await server.rest.agentToken();
    expect(await connectionOutcome(server.url, {})).toEqual({ acked: true });
    expect(await connectionOutcome(server.url, { authorization: `Bearer ${token}` })).toEqual({ acked: true });
    expect(await connectionOutcome(server.url, { authorization: token })).toEqual({ acked: true });
    expect(await connectionOutcome(server.url, { Authorization: `Bearer ${token}` })).toEqual({ acked: true });
  });

  it('closes a connection with an unknown token with 4403', async () => {
    expect(await closeCodeFor(server.url, { authorization: `Bearer bwa_${'x'.repeat(43)}` })).toBe(4403);
  });

  it('closes a connection with an expired token with 4403', async () => {
    const token = await server.rest.agentToken();
    await query(server.databaseUrl, `update access_token set expires_at = now() - interval '1 minute' where token_hash = $1`, [sha256(token)]);
    expect(await closeCodeFor(server.url, { authorization: `Bearer ${token}` })).toBe(4403);
  });

  it('closes a connection with a revoked token with 4403', async () => {
    const token = await server.rest.agentToken();
    expect((await server.rest.delete('/api/agent/sessions/current', { token })).status).toBe(204);
    expect(await closeCodeFor(server.url, { authorization: `Bearer ${token}` })).toBe(4403);
  });

  it.each([['Token abc'], ['Bearer a b'], [42], [{ token: 'x' }]])('closes a connection whose authorization is %j with 4403', async (authorization) => {
    expect(await closeCodeFor(server.url, { authorization })).toBe(4403);
  });
});

describe('subscriptions end to end', () => {
  it("delivers operationUpdated to the operation's owner when a step is submitted", async () => {
    const token = await server.rest.agentToken();
    const op = await startCreate(token);
    const ws = connectWs(server.url, token);
    try {
      const sub = ws.subscribe(OperationUpdatedDocument, { id: op.operation_id });
      // The first event is the current state: once it arrives the subscription is live, so nothing is missed.
      expect((await sub.next()).data).toMatchObject({ operationUpdated: { id: op.operation_id, status: 'ACTIVE', step: 1 } });
      const submit = await server.rest.post(`/api/tools/operations/${op.operation_id}/submit`, {
        token,
        body: { token: op.token, submission: createSubmissions()[0] },
      });
      expect(submit.status).toBe(200);
      const event = await sub.next();
      expect(event.errors).toBeUndefined();
      expect(event.data).toMatchObject({ operationUpdated: { id: op.operation_id, status: 'ACTIVE', step: 2 } });

      const cancel = await server.rest.post(`/api/tools/operations/${op.operation_id}/cancel`, { token });
      expect(cancel.status).toBe(200);
      expect((await sub.next()).data).toMatchObject({ operationUpdated: { id: op.operation_id, status: 'CANCELLED', step: null } });
      sub.dispose();
    } finally {
      await ws.close();
    }
  });

  it("answers a subscription to someone else's operation with NOT_FOUND and an anonymous one with UNAUTHENTICATED", async () => {
    const owner = await server.rest.agentToken();
    const stranger = await server.rest.agentToken();
    const op = await startCreate(owner);
    const strangerWs = connectWs(server.url, stranger);
    const anonymousWs = connectWs(server.url);
    try {
      const strangerSub = strangerWs.subscribe(OperationUpdatedDocument, { id: op.operation_id });
      const strangerResult = await strangerSub.next();
      expect(strangerResult.data ?? null).toBeNull();
      expect(strangerResult.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
      const anonymousResult = await anonymousWs.subscribe(OperationUpdatedDocument, { id: op.operation_id }).next();
      expect(anonymousResult.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    } finally {
      await strangerWs.close();
      await anonymousWs.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('closes open WebSocket connections with 1001 and finishes', async () => {
    const own = await startTestServer();
    const token = await own.rest.agentToken();
    const op = await (async () => {
      const res = await own.rest.post('/api/tools/operations', { token, body: { tool_type: 'create', params: {} } });
      return res.body as { operation_id: string };
    })();
    const socket = new WebSocket(own.url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    const acked = new Promise<void>((resolve) => socket.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && resolve()));
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    await acked;
    socket.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: { query: 'subscription($id: ID!) { operationUpdated(id: $id) { id } }', variables: { id: op.operation_id } },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const started = Date.now();
    await own.app.close();
    expect(await closed).toBe(1001);
    expect(Date.now() - started).toBeLessThan(8000); // well inside ws's 30 s close timeout
    await own.close(); // drops the database
  });

  it("cuts a WebSocket client that never answers the close frame after a grace period, not after the ws library's 30 s timeout", async () => {
    const own = await startTestServer();
    const socket = new WebSocket(own.url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    const acked = new Promise<void>((resolve) => socket.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && resolve()));
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await acked;
    // Stop reading: the client never sees, so never answers, the server's close frame.
    const tcp = (socket as unknown as { _socket: import('node:net').Socket })._socket;
    tcp.pause();

    const started = Date.now();
    await own.app.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(2500);
    expect(took).toBeLessThan(10_000);
    tcp.resume(); // now it reads the 1001 frame and then the end of a connection the server has cut
    expect(await closed).toBe(1001); // it got the close frame; the server had already cut the connection
    await own.close();
  });

  it('lets an in-flight HTTP request finish before closing, and refuses new ones meanwhile', async () => {
    const own = await startTestServer();
    const url = own.url;
    await withPg(own.databaseUrl, async (blocker) => {
      // Hold a lock the next agent-session insert needs, so that request is in flight when close() starts.
      await blocker.query('begin');
      await blocker.query('lock table principal in exclusive mode');
      const inFlight = fetch(`${url}/api/agent/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"late"}' });
      await waitFor(
        async () => (await query(own.databaseUrl, `select count(*)::int as n from pg_locks where relation = 'principal'::regclass and not granted`))[0]!.n > 0,
      );
      let closedAt = 0;
      const closing = own.app.close().then(() => (closedAt = Date.now()));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(closedAt).toBe(0); // still draining
      // Meanwhile a new request is turned away (refused connection or 503), never served.
      const during = await fetch(`${url}/healthz`).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 'refused',
      );
      expect([503, 'refused']).toContain(during);
      const releasedAt = Date.now();
      await blocker.query('commit');
      const res = await inFlight;
      expect(res.status).toBe(201);
      expect(((await res.json()) as { token: string }).token).toMatch(/^bwa_/);
      await closing;
      expect(closedAt).toBeGreaterThanOrEqual(releasedAt);
      // The drained request's keep-alive socket is closed with it: no wait for the 10 s force-close fallback.
      expect(closedAt - releasedAt).toBeLessThan(8000);
    });
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(await query(own.databaseUrl, `select name from principal where name = 'late'`)).toEqual([{ name: 'late' }]);
    await own.close().catch(() => undefined); // drops the database; the app is already closed
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
