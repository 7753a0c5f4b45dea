import { UniqueConstraintViolationException, ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext, Viewer } from '../platform/context';
import { conflict, forbidden, notFound, unauthenticated, validationFailed } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { AccessToken, AccessTokenKind } from './access-token.entity';
import { requireViewer } from './auth.service';
import { hashPassword, passwordMatches } from './passwords';
import { Principal, PrincipalKind } from './principal.entity';
import { assertSignInAllowed, clearSignInFailures, recordSignInFailure } from './sign-in-limit';
import { hashToken, liveTokenSql, newToken } from '../platform/sql/tokens';

/** A sign-in: who, and the `bws_` token that now acts for them (shown once). */
export interface SignedIn {
  userId: string;
  username: string;
  token: string;
  expiresAt: Date;
}

const credentials = compileSchema({
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', pattern: '^[a-z0-9-]{3,40}$' },
    password: { type: 'string', minLength: 12, maxLength: 200 },
  },
});

/** Sign-in takes any strings (a wrong one is a 401 like any other), bounded so nobody hashes a megabyte. */
const loginBody = compileSchema({
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password'],
  properties: { username: { type: 'string', maxLength: 200 }, password: { type: 'string', maxLength: 200 } },
});

async function issueSignInToken(tx: EntityManager, ctx: RequestContext, principal: Principal): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken('signIn');
  const expiresAt = new Date(Date.now() + ctx.config.limits.signInSessionMs);
  const row = new AccessToken(ref(principal), AccessTokenKind.SIGN_IN, hashToken(token), expiresAt);
  row.prefix = token.slice(0, 8);
  tx.persist(row);
  await tx.flush();
  return { token, expiresAt };
}

/** `POST /api/auth/signup`: a new person with an argon2id password hash, signed in at once. 409 when the username is taken. */
export async function signUp(ctx: RequestContext, body: unknown): Promise<SignedIn> {
  const input = assertValid<{ username: string; password: string }>(credentials, body ?? {}, 'body');
  const passwordHash = await hashPassword(input.password);
  try {
    return await ctx.em.transactional(async (tx) => {
      const principal = new Principal(PrincipalKind.USER, input.username);
      principal.username = input.username;
      principal.passwordHash = passwordHash;
      tx.persist(principal);
      const session = await issueSignInToken(tx, ctx, principal);
      return { userId: principal.id, username: input.username, ...session };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('That username is taken', { username: input.username });
    throw err;
  }
}

/**
 * `POST /api/auth/login`. A wrong username and a wrong password are the same 401 (and cost the same
 * argon2 verification); too many failures are a 429 (sign-in-limit.ts).
 */
export async function signIn(ctx: RequestContext, body: unknown): Promise<SignedIn> {
  const { userId, username } = await verifyCredentials(ctx, body);
  return ctx.em.transactional(async (tx) => {
    const principal = tx.getReference(Principal, userId);
    const session = await issueSignInToken(tx, ctx, principal);
    return { userId, username, ...session };
  });
}

/**
 * Checks a username and password as sign-in does (same limits, same 401 for either being wrong) without
 * issuing a token: sign-in and the OAuth consent page (src/oauth) each issue their own.
 */
export async function verifyCredentials(ctx: RequestContext, body: unknown): Promise<{ userId: string; username: string }> {
  const input = assertValid<{ username: string; password: string }>(loginBody, body ?? {}, 'body');
  const username = input.username.trim().toLowerCase();
  const ip = ctx.ip ?? 'unknown';
  await assertSignInAllowed(ctx.em, ctx.config.limits, username, ip);
  const rows: Array<{ id: string; password_hash: string | null }> = await ctx.em.execute(
    `select id, password_hash from principal where username = ? and kind = 'user'`,
    [username],
  );
  const found = rows[0];
  if (!(await passwordMatches(found?.password_hash ?? null, input.password)) || !found) {
    await recordSignInFailure(ctx.em, username, ip);
    throw unauthenticated('Wrong username or password');
  }
  await clearSignInFailures(ctx.em, username);
  return { userId: found.id, username };
}

/** `DELETE /api/auth/session`: revokes the sign-in token presented. Other token kinds: 400. */
export async function signOut(ctx: RequestContext): Promise<void> {
  const viewer = requireViewer(ctx);
  if (viewer.tokenKind !== AccessTokenKind.SIGN_IN || !viewer.tokenId)
    throw validationFailed('Only a sign-in token signs out; revoke account tokens with DELETE /api/account/tokens/:id', {
      token_kind: viewer.tokenKind ?? null,
    });
  await ctx.em.nativeUpdate(AccessToken, { id: viewer.tokenId, revokedAt: null }, { revokedAt: new Date() });
}

/** A person (signed in, or holding one of their account tokens); an agent session gets 403. */
export function requireUser(ctx: RequestContext): Viewer {
  const viewer = requireViewer(ctx);
  if (viewer.kind !== PrincipalKind.USER) throw forbidden('Only a signed-in user may do this; an agent session may not');
  return viewer;
}

/**
 * A person on a sign-in session (`bws_`): the only caller that manages tokens (docs/accounts.md). An
 * account token (`bwu_`, pasted or issued to an OAuth client) and an agent session get 403, so no token
 * can mint a token that outlives it, nor revoke its owner's other tokens.
 */
export function requireSignInSession(ctx: RequestContext): Viewer {
  const viewer = requireViewer(ctx);
  if (viewer.kind !== PrincipalKind.USER || viewer.tokenKind !== AccessTokenKind.SIGN_IN)
    throw forbidden('Only a sign-in session (a bws_ token from sign-in) manages tokens; an account token or agent session may not');
  return viewer;
}

/**
 * The principal of a live agent session token, its token row locked until the caller's transaction ends (so
 * two claims of one session run one after the other); 404 when the token is not a live agent session.
 */
export async function lockLiveAgentSession(tx: EntityManager, agentToken: string): Promise<string> {
  const rows: Array<{ principal_id: string }> = await tx.execute(
    `select t.principal_id from access_token t
      where t.token_hash = ? and t.kind = 'agent_session' and ${liveTokenSql('t')}
      for update`,
    [hashToken(agentToken)],
  );
  const agentId = rows[0]?.principal_id;
  if (!agentId) throw notFound('agent session');
  return agentId;
}

/** Revokes every live token of a principal at once (an agent session whose work a person has claimed). */
export async function revokeAllTokens(tx: EntityManager, principalId: string): Promise<void> {
  await tx.execute('update access_token set revoked_at = now() where principal_id = ? and revoked_at is null', [principalId]);
}
