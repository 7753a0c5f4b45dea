import type { SignedIn } from './account.service';
import type { AccountToken } from './account-token.service';

/** The REST (and MCP) bodies of docs/accounts.md, built once. */
export function toSignedInBody(s: SignedIn) {
  return { user_id: s.userId, username: s.username, token: s.token, expires_at: s.expiresAt.toISOString() };
}

export function toAccountTokenBody(t: AccountToken) {
  return {
    id: t.id,
    name: t.name,
    scope: t.scope,
    prefix: t.prefix,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}

/** The one answer that carries the secret: right after creation. */
export function toCreatedTokenBody(t: AccountToken & { token: string }) {
  const { last_used_at: _unused, ...body } = toAccountTokenBody(t);
  return { ...body, token: t.token };
}
