import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Readable prefixes so a leaked token says what it is (docs/api.md). */
export const tokenPrefix = {
  user: 'bwu_',
  agent: 'bwa_',
  signIn: 'bws_',
  step: 'bwt_',
  execution: 'bwx_',
} as const;

export type TokenPurpose = keyof typeof tokenPrefix;

/** A new secret: a readable prefix and 32 random bytes, base64url. */
export function newToken(purpose: TokenPurpose): string {
  return tokenPrefix[purpose] + randomBytes(32).toString('base64url');
}

/** What is stored instead of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares a presented token with a stored hash in constant time. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const presented = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Reads `Authorization: Bearer <token>`; undefined when the header is absent, null when it is malformed. */
export function bearerFrom(header: string | undefined): string | null | undefined {
  if (header === undefined || header === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * SQL condition "access token `alias` may still be used": not revoked and not expired. The one spelling of
 * token validity, for the bearer lookup, the per-event re-check of live subscriptions, claims and OAuth.
 */
export function liveTokenSql(alias: string): string {
  return `${alias}.revoked_at is null and (${alias}.expires_at is null or ${alias}.expires_at > now())`;
}
