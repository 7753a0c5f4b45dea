import { Redis } from 'ioredis';
import type { Viewer } from './context';

/**
 * Rate-limit buckets shared by every transport: HTTP requests (through @fastify/rate-limit's store
 * interface) and WebSocket operations count in the same bucket for the same caller, so a token refused over
 * HTTP is refused over WebSocket too. With `REDIS_URL` the buckets live in Redis and every instance behind
 * a load balancer shares them; without it they live in this process. See docs/limits.md.
 */

/** The outcome of one hit: the count in the current window and the milliseconds until it resets. */
export interface RateHit {
  count: number;
  ttlMs: number;
}

export interface RateLimiter {
  /** Counts one hit in `key`'s fixed window of `windowMs` (the window starts with its first hit). */
  hit(key: string, windowMs: number): Promise<RateHit>;
  close(): Promise<void>;
}

/** The bucket of `POST /api/agent/sessions` and of `createAgentSession` over GraphQL (HTTP or WebSocket), per IP. */
export const sessionCreateKey = (ip: string) => `session-create:ip:${ip}`;

/**
 * The general bucket of a caller (docs/accounts.md): a person's account, whichever of their tokens
 * they present (so minting tokens does not multiply the budget); agent sessions by address, all of them
 * together (they are free to create); anonymous callers and invalid tokens by address.
 */
export function callerKey(viewer: Pick<Viewer, 'principalId' | 'kind'> | null | undefined, ip: string): string {
  if (viewer?.kind === 'user') return `account:${viewer.principalId}`;
  if (viewer?.kind === 'agent') return `agents:ip:${ip}`;
  return `ip:${ip}`;
}

/** Buckets in this process's memory; expired ones are swept as the map grows. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { count: number; resetAt: number }>();
  private sweepAt = 10_000;

  async hit(key: string, windowMs: number): Promise<RateHit> {
    const now = Date.now();
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + windowMs };
      this.buckets.set(key, bucket);
      if (this.buckets.size > this.sweepAt) this.sweep(now);
    }
    bucket.count++;
    return { count: bucket.count, ttlMs: bucket.resetAt - now };
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.resetAt <= now) this.buckets.delete(key);
    this.sweepAt = Math.max(10_000, this.buckets.size * 2);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}

/** INCR, start the window on the first hit, answer the count and the time left: one atomic round trip. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** Buckets in Redis, shared by every instance that uses the same Redis and key prefix. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    // Fail fast instead of queueing hits while Redis is away; the caller decides what a failure means.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => undefined); // reported per hit; without a listener ioredis logs to stderr
  }

  async hit(key: string, windowMs: number): Promise<RateHit> {
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, String(windowMs))) as [number, number];
    return { count, ttlMs: ttl };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export function createRateLimiter(redisUrl: string | undefined, prefix: string): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, prefix) : new MemoryRateLimiter();
}

/**
 * A store for @fastify/rate-limit that counts in `limiter` (its keys are the key generators' answers, so
 * the route decides the bucket). Its `child` (per-route limits) shares the same buckets.
 */
export function fastifyRateStore(limiter: RateLimiter) {
  return class SharedRateStore {
    incr(key: string, callback: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      limiter.hit(key, timeWindow).then(
        (r) => callback(null, { current: r.count, ttl: r.ttlMs }),
        (err: Error) => callback(err),
      );
    }

    child(): SharedRateStore {
      return new SharedRateStore();
    }
  };
}
