import DataLoader from 'dataloader';
import type { RequestContext } from '../platform/context';
import { byKeys } from '../platform/loaders';
import { Principal } from './principal.entity';

/** Principals (owners, authors, actors) by id, batched per request; null when there is none. */
export function principalById(ctx: RequestContext, id: string): Promise<Principal | null> {
  return ctx.loaders
    .get(
      'principal.byId',
      () => new DataLoader<string, Principal | null>(async (ids) => byKeys(ids, await ctx.em.find(Principal, { id: { $in: [...ids] } }), (p) => p.id)),
    )
    .load(id);
}

/** Several principals by id, batched with any other loads of the same tick. */
export function principalsById(ctx: RequestContext, ids: readonly string[]): Promise<Array<Principal | null>> {
  return Promise.all(ids.map((id) => principalById(ctx, id)));
}
