import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { bearerFrom, hashToken } from '../sql/tokens';
import type { Config } from '../config';
import { sqlEm, type LiveWriter, type RequestContext, type Viewer } from '../context';
import { requestEntityManager, type Orm } from '../sql/database';
import { AppError, unauthenticated } from '../errors';
import type { EventBus } from '../live/events';
import { Loaders } from '../loaders';
import type { RateLimiter } from './rate-limit';
import { PendingViewer, type ViewerLookup } from '../graphql/deferred-viewer';

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
  /**
   * The same lookup as SQL a read can carry (deferred-viewer.ts). Without it, every request looks its
   * token up before anything else.
   */
  viewerLookup?: ViewerLookup;
}

/** Who a live token belongs to, as far as rate-limit buckets go (never changes for a token). */
export type KnownCaller = Pick<Viewer, 'principalId' | 'kind'>;

/** At most this many token hashes are remembered per server for `knownCaller`. */
const KNOWN_CALLERS_MAX = 10_000;
const knownCallers = new WeakMap<AppDeps, Map<string, KnownCaller>>();

function callersOf(deps: AppDeps): Map<string, KnownCaller> {
  let map = knownCallers.get(deps);
  if (!map) knownCallers.set(deps, (map = new Map()));
  return map;
}

/**
 * The principal behind a token hash, when a request of this server found the token live before: only the
 * rate-limit bucket is chosen with it (an account's tokens share one). It is not an answer to "is this token
 * live": every request still looks its token up before anything is answered, so a revoked token is 401 at
 * once (its entry is dropped then).
 */
export function knownCaller(deps: AppDeps, tokenHash: string): KnownCaller | undefined {
  return knownCallers.get(deps)?.get(tokenHash);
}

function rememberCaller(deps: AppDeps, tokenHash: string, viewer: Viewer | null): void {
  const map = callersOf(deps);
  if (!viewer) {
    map.delete(tokenHash);
    return;
  }
  if (map.has(tokenHash)) return;
  if (map.size >= KNOWN_CALLERS_MAX) map.delete(map.keys().next().value!);
  map.set(tokenHash, { principalId: viewer.principalId, kind: viewer.kind });
}

/**
 * The context of one HTTP request. Its EntityManager fork (a unit of work, an identity map, a copy of the
 * ORM's filters) is made when something first reads `em`: a read that only sends SQL statements through
 * `sqlEm(ctx)` (the one-blueprint read, the fork tree, registry pages) never makes it.
 */
class HttpRequestContext implements RequestContext {
  private fork: EntityManager | undefined;
  viewer: Viewer | null = null;
  readonly loaders = new Loaders();
  readonly config: Config;
  readonly events: EventBus;
  pendingViewer?: PendingViewer;
  clientIp?: string;

  constructor(
    private readonly orm: Orm,
    deps: Pick<AppDeps, 'config' | 'events'>,
    readonly requestId: string,
    readonly ip: string | undefined,
  ) {
    this.config = deps.config;
    this.events = deps.events;
  }

  get em(): EntityManager {
    return (this.fork ??= requestEntityManager(this.orm));
  }

  get statementEm(): EntityManager {
    return this.fork ?? this.orm.em;
  }
}

/**
 * A context for one request: fresh DataLoaders, an EntityManager fork made on first use, and the viewer
 * behind the bearer token. No token: anonymous. A malformed, unknown, expired or revoked token: 401.
 */
export async function createRequestContext(
  deps: AppDeps,
  authorization: string | undefined,
  requestId: string = randomUUID(),
  ip?: string,
): Promise<RequestContext> {
  const ctx = new HttpRequestContext(deps.orm, deps, requestId, ip);
  const token = bearerFrom(authorization);
  if (token === null) throw unauthenticated('The Authorization header must be "Bearer <token>"');
  const viewer = token === undefined ? null : await deps.resolveViewer(sqlEm(ctx), token);
  if (token !== undefined && deps.viewerLookup) rememberCaller(deps, hashToken(token), viewer);
  ctx.viewer = viewer;
  return ctx;
}

/**
 * A GraphQL request's context whose token is looked up by its first read (deferred-viewer.ts): `viewer` is
 * null, and `pendingViewer` set, until then. Without a token, or without `deps.viewerLookup`, it is
 * `createRequestContext`'s context. Only for GraphQL over HTTP, where the access plugin waits for the
 * lookup before any operation that is not marked `@ViewerAfterRead()` and before the answer is sent, and
 * for REST routes marked `viewerAfterRead`, which answer through `afterViewer`.
 * `tokenHash` is the token's SHA-256 when the caller already has it (the rate-limit hook does).
 */
export async function deferredRequestContext(
  deps: AppDeps,
  authorization: string | undefined,
  requestId: string,
  ip: string,
  tokenHash?: string,
): Promise<RequestContext> {
  const token = bearerFrom(authorization);
  const lookup = deps.viewerLookup;
  if (typeof token !== 'string' || !lookup) {
    const ctx = await createRequestContext(deps, authorization, requestId, ip);
    ctx.clientIp = ip;
    return ctx;
  }
  const ctx = new HttpRequestContext(deps.orm, deps, requestId, ip);
  ctx.clientIp = ip;
  const hash = tokenHash ?? hashToken(token);
  ctx.pendingViewer = new PendingViewer(
    hash,
    lookup,
    () =>
      deps.resolveViewer(sqlEm(ctx), token).then(
        (viewer) => viewer,
        (err: unknown) => {
          if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return null;
          throw err;
        },
      ),
    (viewer) => rememberCaller(deps, hash, viewer),
  );
  ctx.pendingViewer.attach(ctx);
  return ctx;
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

  /** As `HttpRequestContext`'s: an event read that only sends SQL (`sqlEm`) makes no fork. */
  get statementEm(): EntityManager {
    return this.entityManager ?? this.orm.em;
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
