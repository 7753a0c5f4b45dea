import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, Subscription } from '../helpers/ws';

/**
 * Two instances of the service over one database, as behind a load balancer. With REDIS_URL they share
 * their rate-limit buckets: a bucket spent on one is spent on the other, over HTTP and WebSocket alike.
 * Without it each counts its own (the documented fallback). Each run uses its own Redis key prefix, so
 * parallel runs never share a bucket.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const limits = { rateLimitPerMinute: 5, sessionCreatesPerHour: 3 };

async function pair(redis: { url: string; prefix: string } | null): Promise<[TestServer, TestServer]> {
  const options = redis ? { redisUrl: redis.url, redisKeyPrefix: redis.prefix } : {};
  const a = await startTestServer({ limits, ...options });
  const b = await startTestServer({ limits, ...options, databaseUrl: a.databaseUrl });
  return [a, b];
}

async function viewerOverWs(server: TestServer, token: string) {
  const client = connectWs(server.url, token);
  const sub = new Subscription<any>();
  sub.dispose = client.client.subscribe(
    { query: '{ viewer { id } }' },
    { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
  );
  try {
    return await sub.next();
  } finally {
    await client.close();
  }
}

describe('with REDIS_URL: two instances share the buckets', () => {
  const prefix = `bw:test:${randomUUID()}:`;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await pair({ url: REDIS_URL, prefix });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('refuses on instance B a token whose bucket instance A has spent, over HTTP and WebSocket', async () => {
    const token = await a.rest.agentToken('shared');
    for (let i = 0; i < 5; i++) expect((await a.rest.get('/api/inbox', { token })).status).toBe(200);
    const onB = await b.rest.get('/api/inbox', { token });
    expect(onB.status).toBe(429);
    expect(onB.body.error.code).toBe('RATE_LIMITED');
    expect((await viewerOverWs(b, token)).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  });

  it('shares the per-IP bucket of POST /api/agent/sessions (the test above made one session)', async () => {
    expect((await b.rest.post('/api/agent/sessions', { body: {} })).status).toBe(201);
    expect((await a.rest.post('/api/agent/sessions', { body: {} })).status).toBe(201);
    const refused = await b.rest.post('/api/agent/sessions', { body: {} });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keeps the buckets under this run’s prefix in Redis', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.some((k) => k.startsWith(`${prefix}agents:ip:`))).toBe(true);
      expect(keys.some((k) => k.startsWith(`${prefix}session-create:ip:`))).toBe(true);
    } finally {
      await redis.quit();
    }
  });
});

describe('without REDIS_URL: each instance counts in its own memory', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await pair(null);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('refuses on the instance that was spent, and serves on the other', async () => {
    const token = await a.rest.agentToken('local');
    for (let i = 0; i < 5; i++) expect((await a.rest.get('/api/inbox', { token })).status).toBe(200);
    expect((await a.rest.get('/api/inbox', { token })).status).toBe(429);
    expect((await viewerOverWs(a, token)).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect((await b.rest.get('/api/inbox', { token })).status).toBe(200);
    expect((await viewerOverWs(b, token)).errors).toBeUndefined();
  });
});
