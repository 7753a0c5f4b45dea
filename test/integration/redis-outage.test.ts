import { Redis } from 'ioredis';
import { startTestServer, type TestServer } from '../helpers/server';
import { TestRedis } from '../helpers/redis';

/**
 * A Redis outage while the rate-limit buckets live in Redis (`REDIS_URL`), on a redis-server of the test's
 * own: frozen (SIGSTOP: connections stay open, nothing answers) and killed (connections refused). Requests
 * keep answering without waiting on Redis, the limit still holds (counted in the process meanwhile),
 * `/healthz` names Redis as down, and the buckets go back to Redis once it answers again.
 */
jest.setTimeout(60_000);

const LIMIT = 10;
const prefix = 'bw:outage:';
let redis: TestRedis;
let server: TestServer;
let token: string;

/** One request that must answer before a 3 s client timeout (the outage used to hold requests ~10 s). */
async function inbox(): Promise<number> {
  const res = await fetch(`${server.url}/api/inbox`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(3000) });
  await res.arrayBuffer();
  return res.status;
}

async function healthz(): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(3000) });
  return { status: res.status, body: await res.json() };
}

/** Polls /healthz until Redis is reported in `state` (the jest timeout bounds the wait). */
async function redisState(state: 'up' | 'down'): Promise<any> {
  for (;;) {
    const h = await healthz();
    if (h.body.redis?.state === state) return h;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The agents' bucket of this address as Redis holds it. */
async function countInRedis(): Promise<number> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  try {
    const keys = await client.keys(`${prefix}agents:ip:*`);
    return keys.length ? Number(await client.get(keys[0]!)) : 0;
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  redis = await TestRedis.start();
  server = await startTestServer({ redisUrl: redis.url, redisKeyPrefix: prefix, limits: { rateLimitPerMinute: LIMIT } });
  token = (await server.rest.agentSession('outage')).token;
});

afterAll(async () => {
  await server?.close();
  redis?.thaw();
  await redis?.stop();
});

it('reports Redis up in /healthz and counts in Redis while it answers', async () => {
  const h = await redisState('up');
  expect(h.status).toBe(200);
  expect(await inbox()).toBe(200);
  expect(await countInRedis()).toBeGreaterThanOrEqual(1);
});

it('answers while Redis is frozen, holds the limit in the process, and says so in /healthz', async () => {
  const before = await countInRedis();
  redis.freeze();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push(await inbox());
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses).toContain(429);
    const h = await redisState('down');
    expect(h.status).toBe(200);
    expect(h.body.status).toBe('ok');
  } finally {
    redis.thaw();
  }
  await redisState('up');
  // Counting is back in Redis: its bucket grows again.
  const status = await inbox();
  expect([200, 429]).toContain(status);
  expect(await countInRedis()).toBeGreaterThan(before);
});

it('answers while Redis is killed, and goes back to Redis once it is restarted', async () => {
  await redis.stop();
  for (let i = 0; i < 3; i++) expect([200, 429]).toContain(await inbox());
  expect((await redisState('down')).status).toBe(200);
  await redis.start(); // a fresh, empty Redis on the same port
  await redisState('up');
  expect(await inbox()).toBe(200);
  expect(await countInRedis()).toBe(1);
});
