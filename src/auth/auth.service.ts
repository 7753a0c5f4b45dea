import { ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Limits } from '../platform/config';
import type { RequestContext, Viewer } from '../platform/context';
import { unauthenticated } from '../platform/errors';
import { AccessToken, AccessTokenKind } from './access-token.entity';
import { Principal, PrincipalKind } from './principal.entity';
import { hashToken, newToken } from '../platform/tokens';

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
 * Resolves a bearer token to its principal with one indexed lookup. Unknown, expired and revoked tokens
 * are all 401 UNAUTHENTICATED, with no hint which.
 */
export async function viewerFromToken(em: EntityManager, token: string): Promise<Viewer> {
  const rows: Array<{ id: string; kind: 'user' | 'agent'; name: string; token_id: string }> = await em.getConnection().execute(
    `select p.id, p.kind, p.name, t.id as token_id from access_token t join principal p on p.id = t.principal_id
      where t.token_hash = ? and t.revoked_at is null and (t.expires_at is null or t.expires_at > now())`,
    [hashToken(token)],
  );
  const row = rows[0];
  if (!row) throw unauthenticated('The bearer token is unknown, expired or revoked');
  return { principalId: row.id, kind: row.kind, name: row.name, tokenId: row.token_id };
}

/**
 * Revokes the token the caller presented (logout). Only that one: a user's other MCP tokens, minted for
 * other clients, keep working.
 */
export async function revokeViewerToken(ctx: RequestContext): Promise<void> {
  const viewer = requireViewer(ctx);
  if (!viewer.tokenId) throw unauthenticated();
  await ctx.em.nativeUpdate(AccessToken, { id: viewer.tokenId, revokedAt: null }, { revokedAt: new Date() });
}

/** The authenticated caller, or 401. */
export function requireViewer(ctx: Pick<RequestContext, 'viewer'>): Viewer {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
}
