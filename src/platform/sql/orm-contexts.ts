/**
 * MikroORM's async contexts, with Node's promise hooks on only while one of them is in use.
 *
 * MikroORM keeps four `AsyncLocalStorage` instances: the transaction context (`em.transactional`), the
 * flush guard of the unit of work (every `flush`), the raw-fragment stack (`findAndCount`) and the request
 * context. On Node 20 a storage that has run once stays enabled for the life of the process, and while
 * any storage is enabled every promise the process makes calls a JavaScript hook that copies the stores
 * onto it. So the first write turned the hooks on for good, and every later request paid for them: 70-100
 * µs of the one-blueprint read's 520 µs of server CPU on this machine (the read without them: 420-450 µs;
 * docs/reads.md, "Promise hooks only while a transaction runs").
 *
 * Each of MikroORM's storages is made here as an `IdleStorage`: it counts the runs in flight (a run lasts
 * until the promise its callback returned settles, or until the callback returns a value) and disables
 * itself when the last one ends. Disabling is what Node's own `exit` does for the length of a call; it
 * only forgets stores, and none is in use then: every `run` of this storage has ended, so `getStore()`
 * would answer the outer value, which is none (nothing enters a store here without `run`). `enterWith`
 * sets a store without an end, so a storage that used it stays enabled from then on.
 *
 * MikroORM makes the instances when its modules load, with `new AsyncLocalStorage()` read off
 * `node:async_hooks`. This module loads `@mikro-orm/core` with that export swapped for `IdleStorage`, then
 * puts it back, so nothing else sees the subclass. It must therefore load before anything else imports
 * MikroORM: `src/app.ts` and `src/platform/sql/database.ts` import it first, and Jest's `setupFiles` list it. `idleContextsInstalled()`
 * says whether it did (openDatabase warns when not: a performance loss, not a fault).
 */
// The module's own exports object (an `import *` would be a copy): its `AsyncLocalStorage` is swapped below.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import asyncHooks = require('node:async_hooks');

const storages: IdleStorage<unknown>[] = [];

class IdleStorage<T> extends asyncHooks.AsyncLocalStorage<T> {
  private running = 0;
  private pinned = false;
  private readonly ended = (): void => {
    if (--this.running === 0 && !this.pinned) this.disable();
  };

  constructor() {
    super();
    storages.push(this);
  }

  override run<R>(store: T, callback: (...args: unknown[]) => R, ...args: unknown[]): R {
    this.running++;
    let result: R;
    try {
      result = super.run(store, callback, ...args);
    } catch (err) {
      this.ended();
      throw err;
    }
    const thenable = result as { then?: unknown } | null;
    if (thenable !== null && (typeof thenable === 'object' || typeof thenable === 'function') && typeof thenable.then === 'function') {
      // This marks a rejection of `result` as handled; MikroORM awaits every run it makes, so its callers
      // still get the error.
      (result as PromiseLike<unknown>).then(this.ended, this.ended);
    } else {
      this.ended();
    }
    return result;
  }

  override enterWith(store: T): void {
    this.pinned = true;
    super.enterWith(store);
  }
}

const Original = asyncHooks.AsyncLocalStorage;
(asyncHooks as { AsyncLocalStorage: unknown }).AsyncLocalStorage = IdleStorage;
let installed = false;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require('@mikro-orm/core') as typeof import('@mikro-orm/core');
  installed = (core.TransactionContext as unknown as { storage: unknown }).storage instanceof IdleStorage;
} finally {
  (asyncHooks as { AsyncLocalStorage: unknown }).AsyncLocalStorage = Original;
}

/** Whether MikroORM's storages are `IdleStorage`s (false when MikroORM was loaded before this module). */
export function idleContextsInstalled(): boolean {
  return installed;
}

/** MikroORM's storages, and whether each is enabled now (for tests). */
export function ormContextStates(): { count: number; enabled: number } {
  return { count: storages.length, enabled: storages.filter((s) => (s as unknown as { enabled: boolean }).enabled).length };
}
