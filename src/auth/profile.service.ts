import type { RequestContext } from '../platform/context';
import { notFound } from '../platform/errors';
import { Principal } from './principal.entity';

/**
 * A person by the username they signed up with (`/users/:username`). Unknown names, and names that could
 * not be a username (the sign-up pattern), are 404 alike: nobody learns more than that no such page exists.
 */
export async function personByUsername(ctx: RequestContext, username: string): Promise<Principal> {
  if (typeof username !== 'string' || !/^[a-z0-9-]{3,40}$/.test(username)) throw notFound('user', String(username).slice(0, 60));
  const person = await ctx.em.findOne(Principal, { username });
  if (!person) throw notFound('user', username);
  return person;
}
