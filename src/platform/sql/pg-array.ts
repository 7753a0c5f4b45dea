import type { SqlFragment } from './database';

/**
 * A PostgreSQL array literal of text values (`{"a","b"}`), for a `?::text[]` parameter: every value
 * quoted, with its quotes and backslashes escaped, so any text is data and never array syntax.
 */
export function textArrayLiteral(values: Iterable<string>): string {
  return `{${[...values].map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/*
 * Keys of a batched read, spelled for a prepared statement (`executeShaped`). PostgreSQL plans a prepared
 * statement for its parameters' values five times, then keeps one generic plan if that costs no more than
 * their average. A generic plan cannot know an array parameter's length: it assumes ten elements for
 * `= any($n)` and a hundred for `unnest($n)`, so against a custom plan for one key it always costs more,
 * and a one-key statement was planned anew on every execution. One blueprint read by id spent 0.5-0.65 ms
 * of PostgreSQL's CPU binding (planning) and 0.07 ms executing (log_min_duration_statement, bench:peer's
 * tables). One key is therefore spelled `= $n`, whose generic plan is the custom one; batches of several
 * keys keep the array, and PostgreSQL's own choice between the plans.
 */

/** `column` is one of `keys` (a condition). */
export function amongKeys(column: string, keys: readonly string[], type: 'uuid' | 'text'): SqlFragment {
  return keys.length === 1 ? { sql: `${column} = ?::${type}`, params: [keys[0]] } : { sql: `${column} = any(?::${type}[])`, params: [textArrayLiteral(keys)] };
}

/** `keys` as a from-item: a table `alias` of one column `column`, a row per key. */
export function keysTable(keys: readonly string[], type: 'uuid' | 'text', alias: string, column: string): SqlFragment {
  return keys.length === 1
    ? { sql: `(select ?::${type} as ${column}) ${alias}`, params: [keys[0]] }
    : { sql: `unnest(?::${type}[]) as ${alias}(${column})`, params: [textArrayLiteral(keys)] };
}
