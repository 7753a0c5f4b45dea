import { Redis } from 'ioredis';
import type { Viewer } from '../context';

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
  /** Where hits are counted right now (`/healthz` reports it). */
  status(): LimiterStatus;
  /** Resolves once the limiter knows where it counts (Redis answered, or failed to within its timeout). */
  ready(): Promise<void>;
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

  ready(): Promise<void> {
    return Promise.resolve();
  }

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

  status(): LimiterStatus {
    return { name: 'memory' };
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

/** Where a limiter counts, for `/healthz`: Redis and whether it answers, or this process only. */
export type LimiterStatus = { name: 'redis'; state: 'up' | 'down' } | { name: 'memory' };

export interface RedisLimiterSettings {
  /** Longest wait for a connection or an answer from Redis before a hit counts in the process instead. */
  timeoutMs: number;
  /** How often Redis is pinged (to notice an outage without traffic, and its return). */
  probeMs: number;
  /** Told each time Redis goes down or comes back. */
  onStateChange?: (state: 'up' | 'down', err?: unknown) => void;
}

/**
 * Buckets in Redis, shared by every instance that uses the same Redis and key prefix. While Redis does not
 * answer, hits count in this process's memory instead (each instance then holds the limit on its own), so
 * an outage neither lets every request through nor makes any wait: no offline queue, short connect and
 * command timeouts, and no Redis round trip at all until a ping answers again. The buckets counted
 * meanwhile are not copied back to Redis.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly local = new MemoryRateLimiter();
  /** Null until the first answer or failure (connecting at boot is no change worth telling). */
  private up: boolean | null = null;
  private readonly probeTimer: NodeJS.Timeout;
  private probing = false;
  /** Settles at the first answer or failure, or after the connect and ping timeouts: `ready`. */
  private readonly known: Promise<void>;
  private settle: (() => void) | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly settings: RedisLimiterSettings,
  ) {
    this.redis = new Redis(url, {
      // A command while disconnected fails at once rather than waiting in a queue for the reconnection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: settings.timeoutMs,
      commandTimeout: settings.timeoutMs,
      retryStrategy: (times) => Math.min(times * 100, settings.probeMs),
    });
    this.redis.on('error', () => undefined); // the state says it; without a listener ioredis logs to stderr
    this.redis.on('ready', () => void this.probe());
    this.redis.on('close', () => this.setUp(false));
    this.probeTimer = setInterval(() => void this.probe(), settings.probeMs).unref();
    this.known = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, settings.timeoutMs * 2).unref();
      this.settle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Hits before the first ping has answered wait for it (at most the connect and ping timeouts): counted
   * in memory meanwhile, the hits of an instance's first moments were not shared with the others.
   */
  ready(): Promise<void> {
    return this.known;
  }

  status(): LimiterStatus {
    return { name: 'redis', state: this.up === true ? 'up' : 'down' };
  }

  async hit(key: string, windowMs: number): Promise<RateHit> {
    if (this.up === null) await this.known;
    if (this.up === true) {
      try {
        const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, String(windowMs))) as [number, number];
        return { count, ttlMs: ttl };
      } catch (err) {
        this.setUp(false, err);
      }
    }
    return this.local.hit(key, windowMs);
  }

  /** One ping (never two at once): Redis is up exactly when it answers within the timeout. */
  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await this.redis.ping();
      this.setUp(true);
    } catch (err) {
      this.setUp(false, err);
    } finally {
      this.probing = false;
    }
  }

  private setUp(up: boolean, err?: unknown): void {
    this.settle?.();
    this.settle = null;
    if (this.up === up) return;
    const first = this.up === null;
    this.up = up;
    if (!(first && up)) this.settings.onStateChange?.(up ? 'up' : 'down', err);
  }

  async close(): Promise<void> {
    clearInterval(this.probeTimer);
    this.up = false;
    await this.redis.quit().catch(() => this.redis.disconnect());
    await this.local.close();
  }
}

export const defaultRedisLimiterSettings: RedisLimiterSettings = { timeoutMs: 500, probeMs: 1000 };

export function createRateLimiter(redisUrl: string | undefined, prefix: string, settings: RedisLimiterSettings = defaultRedisLimiterSettings): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, prefix, settings) : new MemoryRateLimiter();
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
