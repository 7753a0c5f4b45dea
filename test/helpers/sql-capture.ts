import { sqlListeners } from '../../src/platform/sql/sql-counter';

/** Runs `fn` and returns the text of every SQL statement an in-process test server sent meanwhile. */
export async function captureSql(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (sql: string) => seen.push(sql);
  sqlListeners.add(listener);
  try {
    await fn();
  } finally {
    sqlListeners.delete(listener);
  }
  return seen;
}
