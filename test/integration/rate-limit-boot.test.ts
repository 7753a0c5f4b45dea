import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRateLimiter, defaultRedisLimiterSettings, type RateLimiter } from '../../src/platform/http/rate-limit';

/**
 * A limiter with REDIS_URL counts in Redis from its first hit. Before, it counted in its own memory until
 * its first ping had answered, so the hits an instance took in the moments after it booted were not
 * shared with the others (the two-instance test then let a fourth session through, under load).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bw:test:${randomUUID()}:`;
const limiters: RateLimiter[] = [];
const open = () => {
  const limiter = createRateLimiter(REDIS_URL, prefix, defaultRedisLimiterSettings);
  limiters.push(limiter);
  return limiter;
};

afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()));
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

it('counts a hit taken at once after boot in the shared bucket', async () => {
  const fresh = open();
  expect((await fresh.hit('boot', 60_000)).count).toBe(1);
  expect(fresh.status()).toEqual({ name: 'redis', state: 'up' });
  const other = open();
  await other.ready();
  expect((await other.hit('boot', 60_000)).count).toBe(2);
  expect((await fresh.hit('boot', 60_000)).count).toBe(3);
});

it('a limiter whose Redis never answers is ready within its timeout and counts in memory', async () => {
  const started = Date.now();
  const down = createRateLimiter('redis://127.0.0.1:1', prefix, { timeoutMs: 200, probeMs: 1000 });
  limiters.push(down);
  await down.ready();
  expect(Date.now() - started).toBeLessThan(5_000);
  expect((await down.hit('down', 60_000)).count).toBe(1);
  expect(down.status()).toEqual({ name: 'redis', state: 'down' });
});
