import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import type { RequestContext } from '../context';
import { executePrepared } from '../sql/database';
import { AppError, unauthenticated } from '../errors';
import type { EventBus } from './events';
import { liveTokenSql } from '../sql/tokens';

/**
 * Building blocks of live subscriptions (graphql-ws; the engine is `live-feed.ts` and `durable-live.ts`):
 * the end-of-stream marker, and authorization re-checked before every event. Re-checks are batched across all the
 * subscribers of one server instance: an event that reaches 2,000 subscribers costs one token query,
 * not 2,000.
 */

/** The last value of a stream that had to stop; the field resolver throws `error` to tell the client why. */
export class StreamEnd {
  constructor(readonly error: AppError) {}
}

/** For subscription field resolvers: the event, or the thrown reason its stream ended. */
export function unlessEnded<T>(payload: T | StreamEnd): T {
  if (payload instanceof StreamEnd) throw payload.error;
  return payload;
}

const scopedByBus = new WeakMap<EventBus, Map<string, unknown>>();

/** What identifies a server instance (its event bus) and can make an EntityManager: a request context, or a long-lived part of the instance. */
export type InstanceScope = Pick<RequestContext, 'events' | 'em'>;

/**
 * A value shared by every live subscription of this server instance (keyed by its EventBus), created
 * on first use with an EntityManager of its own. Used for uncached, batched loaders: the checks one event
 * triggers in many subscribers in the same tick become one statement.
 */
export function instanceScoped<T>(ctx: InstanceScope, name: string, create: (em: EntityManager) => T): T {
  let scoped = scopedByBus.get(ctx.events);
  if (!scoped) scopedByBus.set(ctx.events, (scoped = new Map()));
  if (!scoped.has(name)) scoped.set(name, create(ctx.em.fork() as EntityManager));
  return scoped.get(name) as T;
}

/**
 * Which of these token hashes no longer work (usually none): a fan-out to 2,000 subscribers otherwise
 * parsed 2,000 rows to learn that every token still works. One statement for all the receivers of an
 * event (the durable hub checks them at once, without a promise per receiver).
 */
export async function revokedTokens(em: EntityManager, hashes: readonly string[]): Promise<Set<string>> {
  const rows = await executePrepared<{ token_hash: string }>(
    em,
    'live_tokens_lost',
    `select h.token_hash from unnest(?::text[]) h(token_hash)
      where not exists (select 1 from access_token t where t.token_hash = h.token_hash and ${liveTokenSql('t')})`,
    [`{${hashes.join(',')}}`],
  );
  return new Set(rows.map((r) => r.token_hash));
}

function tokenValidLoader(ctx: InstanceScope): DataLoader<string, boolean> {
  return instanceScoped(
    ctx,
    'live.tokenValid',
    (em) =>
      new DataLoader<string, boolean>(
        async (hashes) => {
          const lost = await revokedTokens(em, hashes);
          return hashes.map((h) => !lost.has(h));
        },
        { cache: false },
      ),
  );
}

/** Whether the connection's bearer token still works; anonymous connections have none to lose. */
export async function connectionStillAuthorized(ctx: RequestContext): Promise<boolean> {
  if (!ctx.tokenHash) return true;
  return tokenValidLoader(ctx).load(ctx.tokenHash);
}

/** Subscribe-time check: the token may have been revoked after the socket was opened. */
export async function assertConnectionAuthorized(ctx: RequestContext): Promise<void> {
  if (!(await connectionStillAuthorized(ctx))) throw unauthenticated('The bearer token is unknown, expired or revoked');
}

/**
 * What one receiver may see of an event: the event itself, a copy with every id the receiver may not read
 * replaced by null, or an error that ends the stream (e.g. NOT_FOUND once the subject went out of sight).
 * The rule: an event names only what its receiver may read, so every id of the payload is checked here.
 */
export type EventSight<T> = (event: T) => Promise<T | AppError>;

/** For events whose every id names something the subscription's own check already covers. */
export const sameSight = async <T>(event: T): Promise<T> => event;
