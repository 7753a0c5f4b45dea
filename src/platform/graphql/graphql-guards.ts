import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Limits } from '../config';
import type { Viewer } from '../context';
import { AppError } from '../errors';
import { callerKey, sessionCreateKey, type RateLimiter } from '../http/rate-limit';

/**
 * The rate limits of GraphQL operations, counted in the buckets HTTP uses (rate-limit.ts):
 * - over WebSocket every operation (a `subscribe` message) counts like one HTTP request, in the caller's
 *   bucket (`callerKey`: per account, per IP for agents and anonymous callers); HTTP requests are already counted by @fastify/rate-limit;
 * - every `createAgentSession` field, over HTTP or WebSocket, counts against the per-IP bucket of
 *   `POST /api/agent/sessions`, once per occurrence (aliases cannot batch around it).
 */

/** The root field whose calls share the bucket of `POST /api/agent/sessions`. */
const SESSION_CREATE_FIELD = 'createAgentSession';

/** How often the operation selects root field `name`, through fragments too (each fragment counted once). */
export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode, name: string): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const count = (set: SelectionSetNode): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) n += sel.name.value === name ? 1 : 0;
      else if (sel.kind === Kind.INLINE_FRAGMENT) n += count(sel.selectionSet);
      else {
        const fragmentName = sel.name.value;
        if (visiting.has(fragmentName)) continue; // a cycle; validation refuses the document anyway
        let c = memo.get(fragmentName);
        if (c === undefined) {
          const fragment = fragments.get(fragmentName);
          visiting.add(fragmentName);
          c = fragment ? count(fragment.selectionSet) : 0;
          visiting.delete(fragmentName);
          memo.set(fragmentName, c);
        }
        n += c;
      }
    }
    return n;
  };
  return count(operation.selectionSet);
}

export function rateLimited(ttlMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new AppError('RATE_LIMITED', `Too many requests; retry after ${seconds} s`, { retry_after_seconds: seconds });
}

/**
 * Counts one GraphQL operation in its buckets; answers RATE_LIMITED when one is spent. `countCaller`: also
 * count it in the caller's general bucket (WebSocket; HTTP requests are counted by Fastify). A limiter
 * that throws lets the operation through, as it does for HTTP (the Redis one falls back to memory instead).
 */
export async function chargeOperation(
  limiter: RateLimiter,
  limits: Limits,
  who: { viewer: Viewer | null | undefined; ip: string },
  document: DocumentNode,
  operation: OperationDefinitionNode | null | undefined,
  countCaller: boolean,
): Promise<AppError | null> {
  try {
    if (countCaller) {
      const hit = await limiter.hit(callerKey(who.viewer, who.ip), 60_000);
      if (hit.count > limits.rateLimitPerMinute) return rateLimited(hit.ttlMs);
    }
    const sessions = operation?.operation === 'mutation' ? rootFieldCount(document, operation, SESSION_CREATE_FIELD) : 0;
    for (let i = 0; i < sessions; i++) {
      const hit = await limiter.hit(sessionCreateKey(who.ip), 3_600_000);
      if (hit.count > limits.sessionCreatesPerHour) return rateLimited(hit.ttlMs);
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * Open WebSocket connections per bearer token on this instance: `open` answers false when the token is at
 * its cap, `close` gives the place back.
 */
export class ConnectionCounter {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Whether one more socket of this token would be refused (nothing counted). */
  full(tokenHash: string): boolean {
    return (this.open.get(tokenHash) ?? 0) >= this.max;
  }

  tryOpen(tokenHash: string): boolean {
    const n = this.open.get(tokenHash) ?? 0;
    if (n >= this.max) return false;
    this.open.set(tokenHash, n + 1);
    return true;
  }

  close(tokenHash: string): void {
    const n = (this.open.get(tokenHash) ?? 1) - 1;
    if (n <= 0) this.open.delete(tokenHash);
    else this.open.set(tokenHash, n);
  }
}
