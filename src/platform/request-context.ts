import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { bearerFrom } from './tokens';
import type { Config } from './config';
import type { RequestContext, Viewer } from './context';
import { requestEntityManager, type Orm } from './database';
import { unauthenticated } from './errors';
import type { EventBus } from './events';
import { Loaders } from './loaders';
import type { RateLimiter } from './rate-limit';

/** The long-lived parts every request context is made from. */
export interface AppDeps {
  orm: Orm;
  config: Config;
  events: EventBus;
  /** Rate-limit buckets shared by HTTP and WebSocket (and by instances, with Redis). */
  limiter: RateLimiter;
  /**
   * Who a bearer token belongs to: the auth area's lookup, passed in so that platform code (HTTP,
   * GraphQL, WebSocket) resolves viewers without importing a domain. Unknown, expired or revoked: throws 401.
   */
  resolveViewer(em: EntityManager, token: string): Promise<Viewer>;
}

/**
 * A context for one request or WebSocket operation: a fresh EntityManager fork, fresh DataLoaders and the
 * viewer behind the bearer token. No token: anonymous. A malformed, unknown, expired or revoked token: 401.
 */
export async function createRequestContext(
  deps: AppDeps,
  authorization: string | undefined,
  requestId: string = randomUUID(),
  ip?: string,
): Promise<RequestContext> {
  const em = requestEntityManager(deps.orm);
  const token = bearerFrom(authorization);
  if (token === null) throw unauthenticated('The Authorization header must be "Bearer <token>"');
  const viewer = token === undefined ? null : await deps.resolveViewer(em, token);
  return { em, viewer, loaders: new Loaders(), config: deps.config, events: deps.events, requestId, ip };
}
