import WebSocket from 'ws';
import { defaultLimits } from '../../src/platform/config';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectionOutcome, connectWs, Subscription, type WsClient } from '../helpers/ws';

/**
 * WebSocket limits: the message size of HTTP bodies, a cap on operations per socket and on sockets per
 * token, and the HTTP rate limits counted in the same buckets (see docs/limits.md).
 */
let server: TestServer;
const sockets: WsClient[] = [];
beforeAll(async () => {
  server = await startTestServer({ limits: { rateLimitPerMinute: 10, wsSubscriptionsMax: 3, wsConnectionsPerToken: 2 } });
});
afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

function ws(token?: string): WsClient {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client;
}

/** One operation over graphql-ws: its first result (or error). */
async function once(client: WsClient, query: string, variables?: Record<string, unknown>) {
  const sub = new Subscription<any>();
  sub.dispose = client.client.subscribe(
    { query, variables },
    { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
  );
  const result = await sub.next();
  sub.dispose();
  return result;
}

const VIEWER = '{ viewer { id } }';

it(`closes a socket that sends a message over ${defaultLimits.bodyBytes} bytes with 1009, and serves the next socket`, async () => {
  const code = await new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(server.url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    const timer = setTimeout(() => reject(new Error('not closed')), 5000);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', () =>
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ __typename } # ${'x'.repeat(defaultLimits.bodyBytes)}` } })),
    );
    socket.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
    socket.on('error', () => undefined); // the server's close of an oversize message may surface as an error first
  });
  expect(code).toBe(1009);
  expect(await connectionOutcome(server.url, {})).toEqual({ acked: true });
});

it('runs at most wsSubscriptionsMax operations at once on one socket; completing one frees its place', async () => {
  const token = await server.rest.agentToken('subs');
  const bp = await server.rest.post('/api/architectures', { token, body: { name: 'Sub cap', visibility: 'public' } });
  const client = ws(token);
  const running = [0, 1, 2].map(() => {
    const sub = new Subscription<any>();
    sub.dispose = client.client.subscribe(
      { query: 'subscription S($slug: String!) { architectureChanged(slug: $slug) { kind } }', variables: { slug: bp.body.slug } },
      { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
    );
    return sub;
  });
  const fourth = await once(client, 'subscription S($slug: String!) { architectureChanged(slug: $slug) { kind } }', { slug: bp.body.slug });
  expect(fourth.errors?.[0]).toMatchObject({ extensions: { code: 'VALIDATION_FAILED', details: { max_subscriptions: 3 } } });
  expect(fourth.errors![0]!.message).toMatch(/At most 3 operations/);
  for (const sub of running) expect(await sub.nothingWithin(100)).toBe(true); // still running, nothing sent
  running[0]!.dispose();
  await new Promise((r) => setTimeout(r, 200));
  const after = await once(client, VIEWER);
  expect(after.errors).toBeUndefined();
  for (const sub of running.slice(1)) sub.dispose();
});

it('caps open sockets per token: the third is closed with 4429, and closing one makes room', async () => {
  const token = await server.rest.agentToken('sockets');
  // lazy clients hold their socket while a subscription runs
  const first = ws(token);
  const second = ws(token);
  const held = [first, second].map((c) => c.subscribe<any, any>('subscription { broadcastReceived { id } }'));
  await new Promise((r) => setTimeout(r, 300));
  expect(await connectionOutcome(server.url, { authorization: `Bearer ${token}` })).toEqual({ acked: false, code: 4429 });
  held[1]!.dispose();
  await second.close();
  await new Promise((r) => setTimeout(r, 200));
  expect(await connectionOutcome(server.url, { authorization: `Bearer ${token}` })).toEqual({ acked: true });
  held[0]!.dispose();
});

// People: their bucket is their account's (agent sessions share one per IP, which this file's other tests spend).
describe('rate limits are the HTTP buckets', () => {
  it('refuses over WebSocket a token that HTTP has spent, with RATE_LIMITED and retry_after_seconds', async () => {
    const { token } = await server.rest.signUp();
    for (let i = 0; i < 10; i++) expect((await server.rest.get('/api/inbox', { token })).status).toBe(200);
    const refusedHttp = await server.rest.get('/api/inbox', { token });
    expect(refusedHttp.status).toBe(429);
    const result = await once(ws(token), VIEWER);
    expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', details: { retry_after_seconds: expect.any(Number) } } });
  });

  it('refuses over HTTP a token that a socket has spent', async () => {
    const { token } = await server.rest.signUp();
    const client = ws(token);
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await once(client, VIEWER));
    expect(results.slice(0, 10).every((r) => r.errors === undefined)).toBe(true);
    expect(results[10]!.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    const res = await server.rest.get('/api/inbox', { token });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('createAgentSession over WebSocket spends the REST bucket', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer({ limits: { sessionCreatesPerHour: 3 } });
  });
  afterAll(() => fresh.close());

  it('lets 3 sessions through across WebSocket and REST, then refuses REST, WebSocket and GraphQL over HTTP', async () => {
    const client = connectWs(fresh.url);
    try {
      const a = await once(client, 'mutation { createAgentSession(name: "a") { token } }');
      const b = await once(client, 'mutation { one: createAgentSession(name: "b") { token } }');
      expect(a.errors).toBeUndefined();
      expect(b.errors).toBeUndefined();
      expect((await fresh.rest.post('/api/agent/sessions', { body: {} })).status).toBe(201);
      const refused = await fresh.rest.post('/api/agent/sessions', { body: {} });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      // aliases cannot batch around the limit: each occurrence counts
      const batch = await once(client, 'mutation { x: createAgentSession(name: "x") { token } y: createAgentSession(name: "y") { token } }');
      expect(batch.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      const overHttp = await fresh.gql.request('mutation { createAgentSession(name: "http") { token } }');
      expect(overHttp.status).toBe(429);
      expect(overHttp.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    } finally {
      await client.close();
    }
  });
});
