import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { bearerFrom } from './tokens';
import type { Config } from './config';
import type { LiveWriter, RequestContext, Viewer } from './context';
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

/**
 * The context of one WebSocket operation. A subscription lives as long as its socket, and most of its
 * events are answered from the event itself: its EntityManager fork (a unit of work and an identity map,
 * kilobytes each) is made when something first reads `em`, not held idle by every subscriber.
 */
export class OperationContext implements RequestContext {
  private entityManager: EntityManager | undefined;
  private eventLoaders: Loaders | undefined;
  readonly config: Config;
  readonly events: EventBus;
  /** Set by the WebSocket server for subscriptions; read by the live engine only (`liveWriterOf`). */
  liveWriter: LiveWriter | null = null;

  private readonly orm: Orm;

  constructor(
    deps: Pick<AppDeps, 'orm' | 'config' | 'events'>,
    readonly viewer: Viewer | null,
    readonly requestId: string,
    readonly tokenHash: string | null,
    readonly clientIp: string,
  ) {
    this.orm = deps.orm;
    this.config = deps.config;
    this.events = deps.events;
  }

  get em(): EntityManager {
    return (this.entityManager ??= requestEntityManager(this.orm));
  }

  /** Made on first use too: most events are answered without a loader. */
  get loaders(): Loaders {
    return (this.eventLoaders ??= new Loaders());
  }

  /**
   * Forgets what earlier events loaded (identity map, loaders). Both are dropped, not cleared: fresh ones
   * are made when something next reads them, and none is held while the subscriber waits.
   */
  startEvent(): void {
    this.entityManager = undefined;
    this.eventLoaders = undefined;
  }
}

/**
 * For subscription field resolvers, before each event: a subscription's context lives as long as it does,
 * so every event starts with an empty identity map and fresh loaders (nothing stale from the last one).
 */
export function startEvent(ctx: RequestContext): void {
  if (ctx instanceof OperationContext) return ctx.startEvent();
  ctx.em.clear();
  ctx.loaders.clear();
}
