import DataLoader from 'dataloader';

/**
 * The DataLoaders of one request, created on first use. Domain modules declare their loaders as
 * functions of the context (see `blueprintLoaders`), so this file knows none of them.
 */
export class Loaders {
  private readonly byName = new Map<string, DataLoader<unknown, unknown>>();
  private readonly memo = new Map<string, Promise<unknown>>();

  get<K, V, C = K>(name: string, create: () => DataLoader<K, V, C>): DataLoader<K, V, C> {
    let loader = this.byName.get(name);
    if (!loader) {
      loader = create() as unknown as DataLoader<unknown, unknown>;
      this.byName.set(name, loader);
    }
    return loader as unknown as DataLoader<K, V, C>;
  }

  /** A value computed at most once per request (e.g. the viewer's team roles). */
  once<T>(name: string, compute: () => Promise<T>): Promise<T> {
    let value = this.memo.get(name);
    if (!value) {
      value = compute();
      this.memo.set(name, value);
    }
    return value as Promise<T>;
  }

  /** Forget cached values after a write, so a later read in the same request sees it. */
  clear(): void {
    for (const loader of this.byName.values()) loader.clearAll();
    this.memo.clear();
  }
}

/** Orders rows to match the keys DataLoader asked for (missing keys -> null). */
export function byKeys<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): (R | null)[] {
  const index = new Map<K, R>();
  for (const row of rows) index.set(keyOf(row), row);
  return keys.map((k) => index.get(k) ?? null);
}

/** Groups rows by key, in the order DataLoader asked for (missing keys -> []). */
export function groupByKeys<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): R[][] {
  const index = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = index.get(key);
    if (list) list.push(row);
    else index.set(key, [row]);
  }
  return keys.map((k) => index.get(k) ?? []);
}
