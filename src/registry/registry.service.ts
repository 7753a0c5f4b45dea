import { readableSql } from '../blueprints/access';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { fullProjection, type BlueprintProjection } from '../blueprints/blueprint.projection';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import { DEFAULT_WINDOW_DAYS } from './trending';
import { trendingPageSql } from './trending.service';
import { textArrayLiteral } from '../platform/sql/pg-array';
import { asText, executeShaped, type SqlFragment } from '../platform/sql/database';
import { readWithViewerCheck } from '../platform/graphql/deferred-viewer';
import { keywordQuery, type KeywordQuery } from './keyword-query';
import { starsOrder, takenMatches } from './taken-matches';
import { pageBounds, type PageBounds } from './page-bounds';

export type RegistrySort = 'relevance' | 'stars' | 'recent' | 'trending' | 'rating';
export const registrySorts: readonly RegistrySort[] = ['relevance', 'stars', 'recent', 'trending', 'rating'];

export interface RegistryQuery {
  q?: string;
  tags: string[];
  sort?: RegistrySort;
}

/** `tags=a,b` -> ['a', 'b'] (lowercase, trimmed, empty dropped). */
export function parseTags(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (typeof raw !== 'string') throw invalid('tags', 'must be a string', 'tags must be a comma-separated string');
  return normaliseTagList(raw.split(','));
}

export function normaliseTagList(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];
}

const MAX_WINDOW_DAYS = 365;

/** The trending window in days: default 7, an integer 1..365; `path` names the argument in errors. */
export function parseWindowDays(raw: unknown, path = 'window_days'): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_WINDOW_DAYS;
  const n = typeof raw === 'number' ? raw : /^-?\d{1,6}$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WINDOW_DAYS)
    throw invalid(path, `must be an integer between 1 and ${MAX_WINDOW_DAYS}`, `${path} must be an integer between 1 and ${MAX_WINDOW_DAYS}`);
  return n;
}

/**
 * Totals are exact up to this many matches past the page's offset; beyond, the count stops there and says
 * so (`totalExact: false`: there are more than `total` matches). Counting every one of 100,000 matches
 * cost more than the page itself (docs/reads.md, "Registry at 100,000 blueprints").
 */
export const EXACT_TOTAL_AHEAD = 1000;

export interface RegistryPage {
  items: BlueprintView[];
  /**
   * Every match when `totalExact`; otherwise a lower bound, and there are more: `offset + EXACT_TOTAL_AHEAD`,
   * or, when the caller asked for no count, the page's end plus one.
   */
  total: number;
  totalExact: boolean;
}

/**
 * Public blueprints matching a keyword query (PostgreSQL full-text search over name, tags and
 * description, ranked) and all of the given tags. Only public blueprints are ever listed.
 *
 * Every sort order is index-backed at 100,000 blueprints (see `npm run bench:registry`, which prints the
 * plans). Relevance ranks a bounded candidate set (see `relevancePage`) and counts it in the same
 * statement. The other orders walk an index and stop at the page's end, and the total counts at most
 * `offset + EXACT_TOTAL_AHEAD + 1` matches: in the page's statement for a plain list (`countedPage`), in a
 * second statement beside it for a filter with values.
 */
export async function searchRegistry(
  ctx: RequestContext,
  query: RegistryQuery,
  page: PageRequest,
  projection = fullProjection,
  /** False when nobody reads the total (a GraphQL page without `totalCount`): see `uncountedPage`. */
  counted = true,
): Promise<RegistryPage> {
  const q = query.q?.trim() ?? '';
  if (q.length > 200) throw invalid('q', 'is longer than 200 characters', 'q must be at most 200 characters');
  const where: string[] = [readableSql('b', null).sql];
  const params: unknown[] = [];
  const keywords = q ? keywordQuery(q) : null;
  if (keywords) {
    where.push(`b.search @@ ${keywords.sql}`);
    params.push(...keywords.params);
  }
  if (query.tags.length > 0) {
    where.push('b.tags @> ?::text[]');
    params.push(textArrayLiteral(query.tags));
  }
  const sort = query.sort ?? (q ? 'relevance' : 'stars');
  const filter = where.join(' and ');
  if (sort === 'relevance' && keywords) {
    const rows = await relevancePage(ctx, keywords, filter, params, page, projection);
    // Past the last candidate the page has no row to carry the count.
    const seen = rows.length > 0 ? Number(rows[0]!.total_matches) : null;
    const total = seen === null ? await countMatches(ctx, filter, params, page.offset + EXACT_TOTAL_AHEAD) : cappedTotal(seen, page.offset + EXACT_TOTAL_AHEAD);
    return { items: rows.map((r) => projection.map(r)), total: total.total, totalExact: total.exact };
  }
  // A plain list (no value in the filter) runs prepared, so its page bounds are spelled as constants where
  // they are the usual ones (see `pageBounds`).
  const plain = params.length === 0;
  const pageOf = (p: PageRequest): SqlFragment => {
    const bounds = pageBounds(p, plain ? ctx.config.limits.pageDefault : null);
    return sort === 'trending' ? trendingPageSql(filter, params, bounds, projection) : sortedPageSql(sort, filter, params, bounds, projection);
  };
  if (!counted) return uncountedPage(await readRows(ctx, params, pageOf({ ...page, limit: page.limit + 1 })), page, projection);
  const upTo = page.offset + EXACT_TOTAL_AHEAD;
  if (plain) return countedPage(ctx, pageOf(page), page.offset === 0, filter, upTo, projection);
  const [rows, total] = await Promise.all([readRows(ctx, params, pageOf(page)), countMatches(ctx, filter, params, upTo)]);
  return { items: rows.map((r) => projection.map(r)), total: total.total, totalExact: total.exact };
}

/**
 * A plain list's page and its capped count in one statement: one round trip instead of two. Both are
 * index walks that stop early (the count an index-only scan of at most `upTo + 1` entries), so running
 * them one after the other in one backend costs no time worth the second statement's round trip, socket
 * write and pooled connection. A filter with values keeps them apart, in parallel: there each can take
 * milliseconds (docs/reads.md, "Registry at 100,000 blueprints").
 */
async function countedPage(
  ctx: RequestContext,
  page: SqlFragment,
  /** The first page: its count's bound is the same for every call, a constant (as `pageBounds` spells the page's). */
  first: boolean,
  filter: string,
  upTo: number,
  projection: BlueprintProjection,
): Promise<RegistryPage> {
  // The count is one row; the page's rows are numbered in their order and joined to it, so an empty page
  // still answers the count. Past the first page the bound is a parameter: a text per offset would spend
  // the prepared names.
  const bound = first ? String(upTo + 1) : '?';
  const rows = await readRows(ctx, [], {
    sql: `select bw_c.total as bw_total__, bw_p.* from (${cappedCountSql(filter, bound)}) bw_c
      left join (select row_number() over () as bw_pos__, q.* from (${page.sql}) q) bw_p on true order by bw_p.bw_pos__`,
    params: first ? page.params : [upTo + 1, ...page.params],
  });
  const total = cappedTotal(Number(rows[0]!.bw_total__), upTo);
  const items = rows.filter((r) => r.bw_pos__ !== null).map((r) => projection.map(r));
  return { items, total: total.total, totalExact: total.exact };
}

/**
 * A page read one row long, without the count: the extra row says whether another page follows, which is
 * all `pageInfo` needs. With a filter, the count was most of the page's cost (2.6-3 ms of PostgreSQL
 * against 0.06-0.8 ms for the page itself at 100,000 blueprints; docs/reads.md).
 */
function uncountedPage(rows: Row[], page: PageRequest, projection: BlueprintProjection): RegistryPage {
  const more = rows.length > page.limit;
  return { items: rows.slice(0, page.limit).map((r) => projection.map(r)), total: page.offset + rows.length, totalExact: !more };
}

type Row = Record<string, unknown>;

/**
 * Runs a registry statement. One whose filter has no values (no keyword, no tag: the public list in an
 * order) runs prepared (`executeShaped`): it is parsed once per connection instead of on every call, and
 * its first page of the usual size keeps a generic plan (`pageBounds`). A filter with values is sent as
 * text, as before: a generic plan would not see a tag's or a keyword's selectivity.
 *
 * Every registry statement goes through `readWithViewerCheck`: a GraphQL `registry` page (`@ViewerAfterRead`)
 * carries the token lookup in its first statement instead of sending it ahead, one round trip less. The
 * registry lists public blueprints only, so no statement depends on the viewer.
 */
function readRows(ctx: RequestContext, filterParams: unknown[], statement: SqlFragment): Promise<Row[]> {
  return readWithViewerCheck<Row>(ctx, statement, filterParams.length === 0 ? executeShaped : asText);
}

/** The order of blueprint_public_stars_index: most stars, then newest. */
const STARS_ORDER = starsOrder('b');

function sortedPageSql(sort: RegistrySort, filter: string, params: unknown[], bounds: PageBounds, projection: BlueprintProjection): SqlFragment {
  const order =
    sort === 'recent'
      ? 'b.created_at desc, b.id'
      : sort === 'rating'
        ? // The expression of blueprint_public_rating_index: best mean rating first, unreviewed last.
          '(b.rating_sum::float8 / nullif(b.review_count, 0)) desc nulls last, b.review_count desc, b.id'
        : STARS_ORDER;
  return {
    sql: `select ${projection.sql('b')} from blueprint b where ${filter} order by ${order} offset ${bounds.offset} limit ${bounds.limit}`,
    params: [...params, ...bounds.params.offset, ...bounds.params.limit],
  };
}

/**
 * How many of a keyword's matches relevance ranks: the most-starred ones. Past them, matches follow in the
 * stars order, unranked (docs/decisions.md, "Registry").
 */
export const RELEVANCE_CANDIDATES = 1000;

/**
 * Best full-text rank first among the `RELEVANCE_CANDIDATES` most-starred matches, then the other matches
 * in the stars order. Only `offset + EXACT_TOTAL_AHEAD + 1` matches are taken (in the stars order) and
 * only the candidates are ranked, instead of ranking every match (14 req/s for a keyword matching all
 * 100,000 blueprints before). While the matches fit among the candidates the order is exactly the ranked
 * one of before. The candidates do not move with the offset, so pages never repeat or skip a row. The
 * taken rows' window count is the total, capped like the other orders'. How the matches are taken without
 * reading every one of a broad keyword's: `takenMatches`.
 */
function relevancePage(
  ctx: RequestContext,
  keywords: KeywordQuery,
  filter: string,
  params: unknown[],
  page: PageRequest,
  projection: BlueprintProjection,
): Promise<Row[]> {
  const ranked = `b.stars_pos <= ${RELEVANCE_CANDIDATES}`;
  const taken = takenMatches(filter, params, readableSql('b', null), page.offset + EXACT_TOTAL_AHEAD + 1);
  return readWithViewerCheck<Row>(
    ctx,
    {
      sql: `select ${projection.sql('b')}, count(*) over () as total_matches
       from (select w.*, row_number() over (order by ${starsOrder('w')}) as stars_pos from (${taken.sql}) w) b
      order by ${ranked} desc,
               case when ${ranked} then ts_rank_cd(b.search, ${keywords.sql}) end desc,
               case when ${ranked} then b.stars_count end desc,
               case when ${ranked} then b.id end,
               b.stars_pos
      offset ? limit ?`,
      params: [...taken.params, ...keywords.params, page.offset, page.limit],
    },
    asText,
  );
}

/** `n` matches seen, counting stopped past `upTo`: the total is `upTo` then, and not exact. */
function cappedTotal(n: number, upTo: number): { total: number; exact: boolean } {
  return n > upTo ? { total: upTo, exact: false } : { total: n, exact: true };
}

/** The matches of `filter`, counting at most `upTo + 1` of them; over `upTo`, the total is `upTo`, not exact. */
async function countMatches(ctx: RequestContext, filter: string, params: unknown[], upTo: number): Promise<{ total: number; exact: boolean }> {
  const rows = await readRows(ctx, params, { sql: cappedCountSql(filter, '?'), params: [...params, upTo + 1] });
  return cappedTotal(Number(rows[0]!.total), upTo);
}

/** `total`: how many rows of `blueprint b` match `filter`, counting at most `bound` (SQL: `?` or a constant). */
function cappedCountSql(filter: string, bound: string): string {
  return `select count(*) as total from (select 1 from blueprint b where ${filter} limit ${bound}) m`;
}
