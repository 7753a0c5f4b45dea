import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { EventBus } from './live/events';
import type { Loaders } from './loaders';
import type { PendingViewer } from './graphql/deferred-viewer';

/** Who is calling. `null` viewer = anonymous. */
export interface Viewer {
  principalId: string;
  kind: 'user' | 'agent';
  name: string;
  /** The access token this request presented (what `DELETE /api/agent/sessions/current` revokes). */
  tokenId?: string;
  /** Which kind of token it is: `agent_session`, `sign_in` or `mcp` (an account token). */
  tokenKind?: 'agent_session' | 'sign_in' | 'mcp';
  /** `read` tokens may not write (platform/graphql/access-policy.ts); everything else is `write`. */
  scope?: 'read' | 'write';
}

/**
 * Writes `next` messages of one live subscription straight to its connection, for a stream that has
 * already computed its result (the live engine's direct path, `platform/live/live-feed.ts`): the same bytes
 * graphql-ws would send, without its per-message promise chain. False when the connection is no longer
 * open (the caller falls back).
 */
export interface LiveWriter {
  next(payloadJson: string): boolean;
}

/**
 * Everything one request (or one WebSocket operation) works with. Services receive it; nothing
 * request-scoped lives at module level.
 */
export interface RequestContext {
  em: EntityManager;
  /**
   * What a plain SQL statement of this context runs through (`sqlEm`), when that differs from `em`: a
   * context that forks its EntityManager on first use answers the fork once it exists, and the ORM's root
   * EntityManager until then (a context that has made no fork holds no transaction of its own; the root
   * finds an enclosing one as a fork does). Absent: `em`.
   */
  readonly statementEm?: EntityManager;
  viewer: Viewer | null;
  loaders: Loaders;
  config: Config;
  events: EventBus;
  requestId: string;
  /** The caller's IP address (sign-in rate limits); absent for internal contexts. */
  ip?: string;
  /**
   * WebSocket operations only: the SHA-256 of the connection's bearer token, re-checked before every
   * subscription event so that a token revoked or expired mid-connection stops delivery.
   */
  tokenHash?: string | null;
  /**
   * GraphQL over HTTP only: a bearer token not looked up yet (`viewer` is null until it is). The request's
   * first read carries the lookup (deferred-viewer.ts); nothing is answered before it settles.
   */
  pendingViewer?: PendingViewer;
  /** GraphQL operations only: the caller's IP address (per-IP rate-limit buckets). */
  clientIp?: string;
}

/**
 * The EntityManager a plain SQL statement of `ctx` runs through (`executeShaped`, `asText`,
 * `executePrepared`): a read that needs no unit of work then costs no EntityManager fork (about 15 µs of
 * the one-blueprint read's server CPU, profiled; docs/reads.md).
 */
export function sqlEm(ctx: RequestContext): EntityManager {
  return ctx.statementEm ?? ctx.em;
}
