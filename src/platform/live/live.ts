import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import type { RequestContext } from '../context';
import { executePrepared } from '../sql/database';
import { AppError, TOKEN_REFUSED, unauthenticated } from '../errors';
import type { EventBus } from './events';
import { liveTokenSql } from '../sql/tokens';

/**
 * Building blocks of live subscriptions (graphql-ws; the engine is `live-feed.ts` and `durable-live.ts`):
 * the end-of-stream marker, and authorization re-checked before every event. Re-checks are batched across all the
 * subscribers of one server instance (an event that reaches 2,000 subscribers costs one token query, not
 * 2,000), and a token found valid is not read again until an event says it changed (`LiveTokens`).
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

declare module './events' {
  interface EventTopics {
    /** An access token was revoked, deleted, or its expiry changed (a trigger on `access_token` writes it). */
    'live.token-changed': { tokenHash: string };
  }
}

/**
 * Which of these token hashes no longer work (usually none), in one statement, with the expiry of those
 * that still do (ms since the epoch; null: none).
 */
async function tokenStates(em: EntityManager, hashes: readonly string[]): Promise<{ lost: Set<string>; validUntil: Map<string, number> }> {
  const rows = await executePrepared<{ token_hash: string; valid_until: number | null; live: boolean }>(
    em,
    'live_token_states',
    `select h.token_hash, t.id is not null as live, (extract(epoch from t.expires_at) * 1000)::float8 as valid_until
       from unnest(?::text[]) h(token_hash)
       left join access_token t on t.token_hash = h.token_hash and ${liveTokenSql('t')}`,
    [`{${hashes.join(',')}}`],
  );
  const lost = new Set<string>();
  const validUntil = new Map<string, number>();
  for (const row of rows)
    if (!row.live) lost.add(row.token_hash);
    else validUntil.set(row.token_hash, row.valid_until ?? Number.POSITIVE_INFINITY);
  return { lost, validUntil };
}

/** How many valid tokens an instance remembers (the oldest are forgotten first, and read again when needed). */
const REMEMBERED_TOKENS_MAX = 50_000;
const NONE: ReadonlySet<string> = new Set();

/**
 * The tokens of this instance's live listeners, checked before each event they are handed (docs/scale.md,
 * "Tokens on live connections"). A token found valid is remembered until it expires; the
 * `live.token-changed` event (written by a trigger whenever a token is revoked, deleted or its expiry
 * changes, in the changing transaction) forgets it, and a backplane reconnect (events may have been
 * missed) forgets all. Events reach an instance in commit order, so an event that committed after a
 * revocation is always judged after the instance forgot that token: it reads the token again, finds it
 * revoked and ends the stream, as the per-event read did, without a statement for the events between.
 */
/**
 * What a listener remembers of its token's last check (`LiveTokens.knownValid`): while nothing was
 * forgotten since (`tokenEpoch`) and until `validUntil`, its token is known valid without a lookup.
 */
export interface TokenStamp {
  readonly tokenHash: string | null;
  tokenEpoch: number;
  validUntil: number;
}

export class LiveTokens {
  private readonly validUntil = new Map<string, number>();
  /** Bumped whenever something is forgotten: a read that started before must not remember its answer. */
  private epoch = 0;

  constructor(events: EventBus) {
    events.onEvent('live.token-changed', ({ tokenHash }) => {
      this.validUntil.delete(tokenHash);
      this.epoch += 1;
    });
    events.onResume(() => {
      this.validUntil.clear();
      this.epoch += 1;
    });
  }

  /**
   * Whether the stamp's token is known valid at `now` without a read; stamps it when the answer comes from
   * what this instance remembers, so a fan-out to thousands of listeners looks none of them up next time.
   */
  knownValid(stamp: TokenStamp, now: number): boolean {
    if (stamp.tokenEpoch === this.epoch && stamp.validUntil > now) return true;
    const until = stamp.tokenHash === null ? 0 : (this.validUntil.get(stamp.tokenHash) ?? 0);
    if (until <= now) return false;
    stamp.tokenEpoch = this.epoch;
    stamp.validUntil = until;
    return true;
  }

  /**
   * Which of `hashes` no longer work, read now, remembering the ones that do. The caller passes only the
   * tokens `knownValid` could not vouch for (the one place that decides what is known valid).
   */
  async revoked(em: EntityManager, hashes: readonly string[]): Promise<ReadonlySet<string>> {
    if (hashes.length === 0) return NONE;
    const epoch = this.epoch;
    const { lost, validUntil } = await tokenStates(em, hashes);
    if (epoch === this.epoch)
      for (const [hash, until] of validUntil) {
        this.validUntil.delete(hash);
        this.validUntil.set(hash, until);
        if (this.validUntil.size > REMEMBERED_TOKENS_MAX) this.validUntil.delete(this.validUntil.keys().next().value!);
      }
    return lost;
  }
}

/** This instance's `LiveTokens`. */
export function liveTokens(ctx: InstanceScope): LiveTokens {
  return instanceScoped(ctx, 'live.tokens', () => new LiveTokens(ctx.events));
}

/**
 * Which of these token hashes no longer work, read now (for the checks that must not trust what an
 * instance remembers: a new subscription, a stream re-reading from its cursor).
 */
export async function revokedTokens(em: EntityManager, hashes: readonly string[]): Promise<Set<string>> {
  return (await tokenStates(em, hashes)).lost;
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
  if (!(await connectionStillAuthorized(ctx))) throw unauthenticated(TOKEN_REFUSED);
}

/**
 * What one receiver may see of an event: the event itself, a copy with every id the receiver may not read
 * replaced by null, or an error that ends the stream (e.g. NOT_FOUND once the subject went out of sight).
 * The rule: an event names only what its receiver may read, so every id of the payload is checked here.
 */
export type EventSight<T> = (event: T) => Promise<T | AppError>;

/** For events whose every id names something the subscription's own check already covers. */
export const sameSight = async <T>(event: T): Promise<T> => event;
