/**
 * The registry's keyword query as a PostgreSQL tsquery expression, with the last word read as a prefix.
 *
 * A person types a few letters: "pay" must find "Payments". The query keeps web-search syntax
 * (`websearch_to_tsquery`: "quoted phrase", -exclude, or) for everything but its last word; that word,
 * when it is a plain word (letters and digits only, not inside quotes, not excluded), becomes a prefix
 * term. `to_tsquery('english', 'payments:*')` stems before it matches (`'payment':*`), so a whole word
 * still finds what it found before, and more words that start with it. A prefix that is an English stop
 * word ("in", "or") would be dropped by the English dictionary, so it is then matched unstemmed
 * (`simple`): "in" finds "Invoice".
 *
 * Known limit: the prefix is compared with the stemmed words of the index, so a prefix that runs past a
 * word's stem does not match it ("billin" does not find "Billing", whose stem is "bill"; "bill" and
 * "billing" do).
 *
 * Any input is safe: the prefix word is letters and digits only (so it carries no tsquery syntax), and the
 * rest goes through `websearch_to_tsquery`, which accepts any text.
 */
export interface KeywordQuery {
  /** A tsquery-valued SQL expression with `?` placeholders. */
  sql: string;
  params: string[];
}

const LAST_PLAIN_WORD = /(^|\s)([\p{L}\p{N}]+)\s*$/u;
const TRAILING_OR = /(\S)\s+or\s*$/iu;

const WEB = `websearch_to_tsquery('english', ?)`;
const PREFIX = `(case when numnode(to_tsquery('english', ?)) = 0 then to_tsquery('simple', ?) else to_tsquery('english', ?) end)`;

export function keywordQuery(q: string): KeywordQuery {
  const match = LAST_PLAIN_WORD.exec(q);
  const start = match ? match.index + match[1]!.length : -1;
  // Inside an open quote the word is part of a phrase: leave it to websearch.
  if (!match || (q.slice(0, start).match(/"/g)?.length ?? 0) % 2 === 1) return { sql: WEB, params: [q] };
  const term = `${match[2]!}:*`;
  const prefixParams = [term, term, term];
  let rest = q.slice(0, start);
  let op = '&&';
  const or = TRAILING_OR.exec(rest);
  if (or) {
    rest = rest.slice(0, or.index + 1);
    op = '||';
  }
  if (!rest.trim()) return { sql: PREFIX, params: prefixParams };
  return { sql: `(${WEB} ${op} ${PREFIX})`, params: [rest, ...prefixParams] };
}
