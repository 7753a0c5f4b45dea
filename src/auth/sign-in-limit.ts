import type { EntityManager } from '@mikro-orm/postgresql';
import type { Limits } from '../platform/config';
import { AppError } from '../platform/errors';

/**
 * Brute-force protection for sign-in: failed attempts are rows in PostgreSQL, so every instance behind
 * the load balancer counts the same ones. Past `signInFailuresPerUsername` failures for a username, or
 * `signInFailuresPerIp` from an address, inside `signInWindowMs`, sign-in answers 429 with `Retry-After`
 * (even with the right password) until the oldest failure leaves the window. A success clears the
 * username's failures, not the address's.
 */
export async function assertSignInAllowed(em: EntityManager, limits: Limits, username: string, ip: string): Promise<void> {
  const rows: Array<{ by_user: string; user_oldest: Date | null; by_ip: string; ip_oldest: Date | null }> = await em.execute(
    `select (select count(*) from sign_in_failure where username = ? and at > now() - ? * interval '1 millisecond') as by_user,
            (select min(at) from sign_in_failure where username = ? and at > now() - ? * interval '1 millisecond') as user_oldest,
            (select count(*) from sign_in_failure where ip = ? and at > now() - ? * interval '1 millisecond') as by_ip,
            (select min(at) from sign_in_failure where ip = ? and at > now() - ? * interval '1 millisecond') as ip_oldest`,
    [username, limits.signInWindowMs, username, limits.signInWindowMs, ip, limits.signInWindowMs, ip, limits.signInWindowMs],
  );
  const r = rows[0]!;
  const blockedUntil: number[] = [];
  if (Number(r.by_user) >= limits.signInFailuresPerUsername && r.user_oldest) blockedUntil.push(new Date(r.user_oldest).getTime() + limits.signInWindowMs);
  if (Number(r.by_ip) >= limits.signInFailuresPerIp && r.ip_oldest) blockedUntil.push(new Date(r.ip_oldest).getTime() + limits.signInWindowMs);
  if (blockedUntil.length === 0) return;
  const retryAfter = Math.max(1, Math.ceil((Math.max(...blockedUntil) - Date.now()) / 1000));
  throw new AppError('RATE_LIMITED', `Too many failed sign-ins; retry after ${retryAfter} s`, { retry_after_seconds: retryAfter });
}

/** Records a failed attempt (its own statement, committed whatever the request does next). */
export async function recordSignInFailure(em: EntityManager, username: string, ip: string): Promise<void> {
  await em.execute('insert into sign_in_failure (username, ip, at) values (?, ?, now())', [username, ip]);
}

export async function clearSignInFailures(em: EntityManager, username: string): Promise<void> {
  await em.execute('delete from sign_in_failure where username = ?', [username]);
}
