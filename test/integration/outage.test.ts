import { BroadcastReceivedDocument, ViewerDocument, type BroadcastReceivedSubscription } from '../generated/graphql';
import { createBlueprint } from '../fixtures/blueprints';
import { createTestDatabase } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { statusOf } from '../helpers/rest';
import { TcpProxy } from '../helpers/tcp-proxy';
import { closeCodeFor, connectWs, type Subscription, type WsClient } from '../helpers/ws';

/**
 * A database outage. Server A reaches PostgreSQL through a TCP proxy this test cuts
 * and restores (the machine's shared PostgreSQL keeps running); server B, on the same database, stays
 * connected. While the proxy is cut, A answers 503 UNAVAILABLE with Retry-After (REST, GraphQL and
 * /healthz); once it is restored, A recovers without a restart and a live `broadcastReceived`
 * subscription on A receives, in order, the broadcast B sent during the outage and the ones after.
 */
jest.setTimeout(90_000);

let db: { url: string; drop(): Promise<void> };
let proxy: TcpProxy;
let a: TestServer;
let b: TestServer;
let ws: WsClient | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(db.url);
  proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  await proxy.open();
  a = await startTestServer({ databaseUrl: proxy.urlFor(db.url), database: { acquireTimeoutMs: 2_000, retryAfterSeconds: 2 } });
  b = await startTestServer({ databaseUrl: db.url });
});

afterAll(async () => {
  await ws?.close();
  await proxy?.open().catch(() => undefined); // lets A close its pool cleanly if a test failed mid-outage
  await a?.close();
  await b?.close();
  await proxy?.cut();
  await db?.drop();
});

async function nextMessage(sub: Subscription<BroadcastReceivedSubscription>, timeoutMs: number): Promise<string> {
  const result = await sub.next(timeoutMs);
  if (result.errors?.length) throw new Error(`subscription error: ${JSON.stringify(result.errors)}`);
  return result.data!.broadcastReceived.broadcast.message;
}

async function waitUntilHealthy(url: string, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if ((await statusOf(`${url}/healthz`).catch(() => null)) === 200) return;
    if (Date.now() > deadline) throw new Error('not healthy again in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('answers 503 UNAVAILABLE with Retry-After while the database is unreachable, recovers alone, and the subscription cursor resumes', async () => {
  const owner = await b.rest.agentSession('owner');
  const reader = await b.rest.agentSession('reader');
  const bp = await createBlueprint(b.rest, owner.token, { name: 'Outage source' });
  expect((await b.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader.token })).status).toBe(200);
  const broadcast = async (message: string) => {
    const res = await b.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner.token, body: { message, type: 'notice', severity: 'info' } });
    expect(res.status).toBe(201);
  };

  ws = connectWs(a.url, reader.token);
  const sub = ws.subscribe(BroadcastReceivedDocument, {});
  // The subscription is live on A once a broadcast sent now reaches it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await broadcast('before');
  expect(await nextMessage(sub, 10_000)).toBe('before');

  await proxy.cut();

  const health = await fetch(`${a.url}/healthz`);
  expect(health.status).toBe(503);
  expect(health.headers.get('retry-after')).toBe('2');
  expect(((await health.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');

  const read = await a.rest.get(`/api/blueprints/${bp.id}`, { token: reader.token });
  expect(read.status).toBe(503);
  expect(read.headers.get('retry-after')).toBe('2');
  expect(read.body).toEqual({ error: { code: 'UNAVAILABLE', message: expect.any(String), details: { retry_after_seconds: 2 } } });

  const write = await a.rest.post('/api/architectures', { token: owner.token, body: { name: 'During the outage', visibility: 'public' } });
  expect(write.status).toBe(503);
  expect(write.body.error.code).toBe('UNAVAILABLE');

  const query = await a.gql.request(ViewerDocument, {}, owner.token);
  expect(query.status).toBe(503);
  expect(query.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');

  // A new WebSocket with a token cannot be authenticated now: 1013 (try again later), not 4403.
  expect(await closeCodeFor(a.url, { authorization: `Bearer ${owner.token}` })).toBe(1013);

  // Sent through B while A cannot hear PostgreSQL's notification: A must re-read it from the cursor.
  await broadcast('during');

  await proxy.open();
  await waitUntilHealthy(a.url, 30_000);
  expect(await nextMessage(sub, 15_000)).toBe('during');
  await broadcast('after');
  expect(await nextMessage(sub, 10_000)).toBe('after');
  expect(await sub.nothingWithin(300)).toBe(true);

  expect((await a.rest.get(`/api/blueprints/${bp.id}`, { token: reader.token })).status).toBe(200);
  expect((await a.rest.post('/api/architectures', { token: owner.token, body: { name: 'After the outage', visibility: 'public' } })).status).toBe(201);
});
