/**
 * A PostgreSQL array literal of text values (`{"a","b"}`), for a `?::text[]` parameter: every value
 * quoted, with its quotes and backslashes escaped, so any text is data and never array syntax.
 */
export function textArrayLiteral(values: Iterable<string>): string {
  return `{${[...values].map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
