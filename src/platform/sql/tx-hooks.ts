import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context';

/** A hook run inside the transaction of the write that fires it: it commits or rolls back with it. */
export type TxHook<E> = (tx: EntityManager, ctx: RequestContext, event: E) => Promise<void>;

/**
 * A point in a lower area's write where higher areas take part, so that the lower area never writes a
 * higher area's tables. The lower area declares the point and fires it; a higher area names its hook on
 * its module object (`hooks: [on(point, fn)]`), and the composition root registers every module's hooks
 * once. Hooks run in registration order, awaited one after another in the same transaction.
 */
export class TxHookPoint<E> {
  private readonly hooks: Array<TxHook<E>> = [];

  constructor(readonly name: string) {}

  register(hook: TxHook<E>): void {
    if (!this.hooks.includes(hook)) this.hooks.push(hook);
  }

  async fire(tx: EntityManager, ctx: RequestContext, event: E): Promise<void> {
    for (const hook of this.hooks) await hook(tx, ctx, event);
  }
}

/** One registration, as an area module lists it: which point, and how to register the hook with it. */
export interface TxHookRegistration {
  point: string;
  register(): void;
}

/** `on(blueprintDeleted, removeNodesOf)`: the entry of an area module's `hooks`. */
export function on<E>(point: TxHookPoint<E>, hook: TxHook<E>): TxHookRegistration {
  return { point: point.name, register: () => point.register(hook) };
}

/** Registers every listed hook with its point (the composition root calls this once). */
export function registerTxHooks(registrations: readonly TxHookRegistration[]): void {
  for (const r of registrations) r.register();
}
