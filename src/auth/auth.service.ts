import { ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Limits } from '../platform/config';
import { sqlEm, type RequestContext, type Viewer } from '../platform/context';
import type { ViewerLookup } from '../platform/graphql/deferred-viewer';
import { executePrepared } from '../platform/sql/database';
import { TOKEN_REFUSED, unauthenticated, validationFailed } from '../platform/errors';
import { AccessToken, AccessTokenKind } from './access-token.entity';
import { Principal, PrincipalKind } from './principal.entity';
import { hashToken, liveTokenSql, newToken } from '../platform/sql/tokens';

export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
}

/** Self-provisioned agent session: a principal of kind agent and a bearer token that expires. */
export async function createAgentSession(em: EntityManager, limits: Limits, name?: string): Promise<IssuedSession> {
  return em.transactional(async (tx) => {
    const principal = new Principal(PrincipalKind.AGENT, name?.trim() || 'agent');
    const token = newToken('agent');
    const expiresAt = new Date(Date.now() + limits.agentSessionMs);
    const accessToken = new AccessToken(ref(principal), AccessTokenKind.AGENT_SESSION, hashToken(token), expiresAt);
    tx.persist([principal, accessToken]);
    await tx.flush();
    return { token, sessionId: principal.id, expiresAt };
  });
}

/** A user (created by an operator) and the MCP token they would mint on the setup page. */
export async function createUser(em: EntityManager, name: string): Promise<{ userId: string; token: string }> {
  return em.transactional(async (tx) => {
    const principal = new Principal(PrincipalKind.USER, name);
    const token = newToken('user');
    tx.persist([principal, new AccessToken(ref(principal), AccessTokenKind.MCP, hashToken(token), null)]);
    await tx.flush();
    return { userId: principal.id, token };
  });
}

/** Mints one more MCP token for an existing user. */
export async function mintMcpToken(em: EntityManager, userId: string): Promise<string> {
  const token = newToken('user');
  await em.transactional(async (tx) => {
    tx.persist(new AccessToken(tx.getReference(Principal, userId, { wrapped: true }), AccessTokenKind.MCP, hashToken(token), null));
  });
  return token;
}

/**
 * The token lookup as a CTE: `hit` is the live token's row, with `touch_due` true when the last-used time
 * a token list shows is a minute old or more. `viewerFromToken` selects from it; a GraphQL read can carry
 * it in front of its own statement (`viewerLookup`, platform/graphql/deferred-viewer.ts). The stamp itself
 * is a statement of its own (`touchToken`), run only when due: as a data-modifying CTE in every lookup it
 * cost PostgreSQL about as much as the rest of a one-blueprint read (the lock on `access_token` and its
 * indexes, taken by every statement that carries it, even when it updates nothing).
 *
 * The principal is joined as a lateral subquery fenced by `offset 0`: at most one token matches (its hash
 * is unique), so a nested loop is always the plan, whatever the statistics say. Over a small principal
 * table the planner chose a hash join, about 7 µs more PostgreSQL CPU per lookup (docs/reads.md).
 */
const viewerCtes = `hit as (
         select p.id, p.kind, p.name, t.id as token_id, t.kind as token_kind, t.scope,
                (t.last_used_at is null or t.last_used_at < now() - interval '1 minute') as touch_due
           from access_token t
          cross join lateral (select p.id, p.kind, p.name from principal p where p.id = t.principal_id offset 0) p
          where t.token_hash = ? and ${liveTokenSql('t')}
       )`;
const viewerFromTokenSql = `with ${viewerCtes}
       select id, kind, name, token_id, token_kind, scope, touch_due from hit`;

interface ViewerRow {
  id: string;
  kind: 'user' | 'agent';
  name: string;
  token_id: string;
  token_kind: Viewer['tokenKind'];
  scope: Viewer['scope'];
  touch_due: boolean;
}

function viewerOf(row: ViewerRow): Viewer {
  return { principalId: row.id, kind: shared(row.kind), name: row.name, tokenId: row.token_id, tokenKind: shared(row.token_kind), scope: shared(row.scope) };
}

/** Stamps in flight, by token id: concurrent requests with one token stamp it once. */
const touching = new Map<string, Promise<void>>();

/**
 * Stamps a token's last-used time (what the account's token list shows), at most once a minute: the
 * lookup said it was due. Awaited by the request that found it due, so a list read after it shows it.
 */
function touchToken(em: EntityManager, tokenId: string): Promise<void> {
  let stamp = touching.get(tokenId);
  if (!stamp) {
    stamp = executePrepared(
      em,
      'touch_token',
      `update access_token set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [tokenId],
    )
      .then(() => undefined)
      .finally(() => touching.delete(tokenId));
    touching.set(tokenId, stamp);
  }
  return stamp;
}

/**
 * Resolves a bearer token to its principal with one indexed lookup. Unknown, expired and revoked tokens
 * are all 401 UNAUTHENTICATED, with no hint which.
 */
export async function viewerFromToken(em: EntityManager, token: string): Promise<Viewer> {
  const rows = await executePrepared<ViewerRow>(em, 'viewer_from_token', viewerFromTokenSql, [hashToken(token)]);
  const row = rows[0];
  if (!row) throw unauthenticated(TOKEN_REFUSED);
  if (row.touch_due) await touchToken(em, row.token_id);
  return viewerOf(row);
}

/** A `ViewerRow` from the JSON array `viewerLookup.json` builds (null: the token is not live). */
function rowOfJson(value: unknown): ViewerRow | null {
  if (!Array.isArray(value)) return null;
  const [id, kind, name, token_id, token_kind, scope, touch_due] = value as [
    string,
    ViewerRow['kind'],
    string,
    string,
    ViewerRow['token_kind'],
    ViewerRow['scope'],
    boolean,
  ];
  return { id, kind, name, token_id, token_kind, scope, touch_due };
}

/** The same lookup for a read to carry: the viewer as a JSON array of `ViewerRow`'s columns, in order. */
export const viewerLookup: ViewerLookup = {
  ctes: viewerCtes,
  json: '(select json_build_array(id, kind, name, token_id, token_kind, scope, touch_due) from hit limit 1)',
  fromJson(ctx, value) {
    const row = rowOfJson(value);
    return { viewer: row && viewerOf(row), after: row?.touch_due ? touchToken(sqlEm(ctx), row.token_id) : null };
  },
};

/**
 * The few values of the viewer's enum columns, as strings shared by every viewer: the driver makes new
 * strings for each row, and a WebSocket connection keeps its viewer for its whole life.
 */
const enumValues = new Map<string, string>(['user', 'agent', 'agent_session', 'sign_in', 'mcp', 'read', 'write'].map((v) => [v, v]));
function shared<T extends string | undefined>(value: T): T {
  return value === undefined ? value : ((enumValues.get(value) ?? value) as T);
}

/**
 * `DELETE /api/agent/sessions/current`: ends the caller's agent session. Any other kind of token is a 400:
 * a person signs out with `DELETE /api/auth/session` and revokes account tokens one by one.
 */
export async function endAgentSession(ctx: RequestContext): Promise<void> {
  const viewer = requireViewer(ctx);
  if (viewer.tokenKind !== AccessTokenKind.AGENT_SESSION || !viewer.tokenId)
    throw validationFailed('Only an agent session token can end an agent session; sign out with DELETE /api/auth/session', {
      token_kind: viewer.tokenKind ?? null,
    });
  await ctx.em.nativeUpdate(AccessToken, { id: viewer.tokenId, revokedAt: null }, { revokedAt: new Date() });
}

/** The authenticated caller, or 401. */
export function requireViewer(ctx: Pick<RequestContext, 'viewer'>): Viewer {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
}
