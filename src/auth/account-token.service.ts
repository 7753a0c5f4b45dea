import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../platform/context';
import { conflict, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import type { PageRequest } from '../platform/pagination';
import { AccessToken, AccessTokenKind, TokenScope } from './access-token.entity';
import { requireSignInSession } from './account.service';
import { Principal } from './principal.entity';
import { hashToken, liveTokenSql, newToken } from '../platform/sql/tokens';

/** An account token as its owner sees it in the list (never the secret). */
export interface AccountToken {
  id: string;
  name: string;
  scope: TokenScope;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

function toAccountToken(t: AccessToken): AccountToken {
  return { id: t.id, name: t.name ?? '', scope: t.scope, prefix: t.prefix ?? '', createdAt: t.createdAt, expiresAt: t.expiresAt, lastUsedAt: t.lastUsedAt };
}

function createBody(daysMax: number) {
  return compileSchema({
    type: 'object',
    additionalProperties: false,
    required: ['name', 'scope'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
      scope: { type: 'string', enum: ['read', 'write'] },
      expires_in_days: { type: 'integer', minimum: 1, maximum: daysMax },
    },
  });
}
const createBodies = new Map<number, ReturnType<typeof createBody>>();

/**
 * `POST /api/account/tokens`: a new account token (`bwu_`, for an MCP client or a script). The secret is
 * answered once; only its hash is kept. Without `expires_in_days` it lasts until revoked.
 */
export async function createAccessToken(ctx: RequestContext, body: unknown): Promise<AccountToken & { token: string }> {
  const viewer = requireSignInSession(ctx);
  const daysMax = ctx.config.limits.accountTokenDaysMax;
  if (!createBodies.has(daysMax)) createBodies.set(daysMax, createBody(daysMax));
  const input = assertValid<{ name: string; scope: TokenScope; expires_in_days?: number }>(createBodies.get(daysMax)!, body ?? {}, 'body');
  const expiresAt = input.expires_in_days === undefined ? null : new Date(Date.now() + input.expires_in_days * 86_400_000);
  return ctx.em.transactional((tx) =>
    mintAccountToken(tx, viewer.principalId, { name: input.name.trim(), scope: input.scope, expiresAt }, ctx.config.limits.accountTokensMax),
  );
}

/**
 * Writes a new account token for a user inside the caller's transaction: what `POST /api/account/tokens`
 * and the OAuth token endpoint (src/oauth) both issue, so both are listed, limited and revoked alike.
 */
export async function mintAccountToken(
  tx: EntityManager,
  userId: string,
  spec: { name: string; scope: TokenScope; expiresAt: Date | null },
  tokensMax: number,
): Promise<AccountToken & { token: string }> {
  // The person's row is locked so that concurrent creations count one after the other.
  await tx.execute('select 1 from principal where id = ? for update', [userId]);
  const [{ n }] = (await tx.execute(`select count(*)::int as n from access_token t where t.principal_id = ? and t.kind = 'mcp' and ${liveTokenSql('t')}`, [
    userId,
  ])) as [{ n: number }];
  if (n >= tokensMax)
    throw conflict(`This account holds ${n} live tokens, the most it may; revoke one (DELETE /api/account/tokens/:id) first`, { max_tokens: tokensMax });
  const token = newToken('user');
  const row = new AccessToken(tx.getReference(Principal, userId, { wrapped: true }), AccessTokenKind.MCP, hashToken(token), spec.expiresAt);
  row.name = spec.name;
  row.scope = spec.scope;
  row.prefix = token.slice(0, 8);
  tx.persist(row);
  await tx.flush();
  return { ...toAccountToken(row), token };
}

/** `GET /api/account/tokens`: the person's live account tokens, newest first, with when each was last used. */
export async function listAccessTokens(ctx: RequestContext, page: PageRequest): Promise<{ items: AccountToken[]; total: number }> {
  const viewer = requireSignInSession(ctx);
  const [rows, total] = await ctx.em.findAndCount(
    AccessToken,
    { principal: viewer.principalId, kind: AccessTokenKind.MCP, revokedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { items: rows.map(toAccountToken), total };
}

/**
 * `DELETE /api/account/tokens/:id`: revoked at once. Every HTTP and MCP request looks its token up, and
 * live subscriptions re-check theirs before each event, so nothing more is needed. 404 for someone else's.
 */
export async function revokeAccessToken(ctx: RequestContext, id: string): Promise<void> {
  const viewer = requireSignInSession(ctx);
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
  const changed = uuid
    ? await ctx.em.nativeUpdate(
        AccessToken,
        { id: id.toLowerCase(), principal: viewer.principalId, kind: AccessTokenKind.MCP, revokedAt: null },
        { revokedAt: new Date() },
      )
    : 0;
  if (changed === 0) throw notFound('token', id);
}
