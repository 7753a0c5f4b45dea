import { readableSql } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { fullProjection, type BlueprintProjection } from '../blueprints/blueprint.projection';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import { trendingScoreSql } from './trending';
import { textArrayLiteral } from '../platform/pg-array';

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

export const DEFAULT_WINDOW_DAYS = 7;
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
 * Public blueprints matching a keyword query (PostgreSQL full-text search over name, tags and
 * description, ranked) and all of the given tags. Only public blueprints are ever listed.
 *
 * Every sort order is index-backed at 100,000 blueprints (see `npm run bench:registry`, which prints the
 * plans): the page and the total are two statements, so a page never computes every match (as a
 * `count(*) over ()` would); stars and recent walk their partial indexes; trending ranks only the
 * blueprints with activity in the window, then fills the page from the stars index.
 */
export async function searchRegistry(
  ctx: RequestContext,
  query: RegistryQuery,
  page: PageRequest,
  projection = fullProjection,
): Promise<{ items: Blueprint[]; total: number }> {
  const q = query.q?.trim() ?? '';
  if (q.length > 200) throw invalid('q', 'is longer than 200 characters', 'q must be at most 200 characters');
  const where: string[] = [readableSql('b', null).sql];
  const params: unknown[] = [];
  if (q) {
    where.push(`b.search @@ websearch_to_tsquery('english', ?)`);
    params.push(q);
  }
  if (query.tags.length > 0) {
    where.push('b.tags @> ?::text[]');
    params.push(textArrayLiteral(query.tags));
  }
  const sort = query.sort ?? (q ? 'relevance' : 'stars');
  const filter = where.join(' and ');
  const [rows, total] = await Promise.all([
    sort === 'trending' ? trendingPage(ctx, filter, params, page, projection) : sortedPage(ctx, sort, q, filter, params, page, projection),
    countMatches(ctx, filter, params),
  ]);
  return { items: rows.map((r) => projection.map(r)), total };
}

type Row = Record<string, unknown>;

function sortedPage(
  ctx: RequestContext,
  sort: RegistrySort,
  q: string,
  filter: string,
  params: unknown[],
  page: PageRequest,
  projection: BlueprintProjection,
): Promise<Row[]> {
  const order =
    sort === 'relevance' && q
      ? `ts_rank_cd(b.search, websearch_to_tsquery('english', ?)) desc, b.stars_count desc, b.id`
      : sort === 'recent'
        ? 'b.created_at desc, b.id'
        : sort === 'rating'
          ? // The expression of blueprint_public_rating_index: best mean rating first, unreviewed last.
            '(b.rating_sum::float8 / nullif(b.review_count, 0)) desc nulls last, b.review_count desc, b.id'
          : 'b.stars_count desc, b.created_at desc, b.id';
  const orderParams = sort === 'relevance' && q ? [q] : [];
  return ctx.em.execute(`select ${projection.sql('b')} from blueprint b where ${filter} order by ${order} offset ? limit ?`, [
    ...params,
    ...orderParams,
    page.offset,
    page.limit,
  ]);
}

/**
 * Trending order (window score desc, stars desc, id) without scoring every match: the blueprints with
 * activity in the window are few and scored from the time indexes; every other match scores 0, so the
 * rest of the page comes from the stars index, `offset + limit` rows at most.
 */
function trendingPage(ctx: RequestContext, filter: string, params: unknown[], page: PageRequest, projection: BlueprintProjection): Promise<Row[]> {
  const cols = projection.sql('b');
  return ctx.em.execute(
    `with since as (select now() - make_interval(days => ?) as t),
          activity as (${windowActivitySql}),
          scored as (select blueprint_id, ${trendingScoreSql} as score from activity),
          active as (select ${cols}, s.score from scored s join blueprint b on b.id = s.blueprint_id where ${filter}),
          -- "not in" over the small active set is one hashed lookup per row, so the stars index walk stops at the limit.
          quiet as (select ${cols}, 0 as score from blueprint b
                     where ${filter} and b.id not in (select blueprint_id from scored)
                     order by b.stars_count desc, b.id limit ?)
     select * from (select * from active union all select * from quiet) b
      order by b.score desc, b.stars_count desc, b.id offset ? limit ?`,
    [DEFAULT_WINDOW_DAYS, ...params, ...params, page.offset + page.limit, page.offset, page.limit],
  );
}

/**
 * Activity per blueprint inside the window `since.t` (a CTE named `since` must be in scope): stars given,
 * forks made and executions started, each from its time index.
 */
const windowActivitySql = `select blueprint_id, sum(stars) as stars, sum(forks) as forks, sum(executions) as executions from (
    select blueprint_id, count(*) as stars, 0 as forks, 0 as executions from star, since where star.created_at >= since.t group by blueprint_id
    union all
    select forked_from_id, 0, count(*), 0 from blueprint, since where forked_from_id is not null and blueprint.created_at >= since.t group by forked_from_id
    union all
    select blueprint_id, 0, 0, count(*) from execution_run, since where execution_run.started_at >= since.t group by blueprint_id
  ) a group by blueprint_id`;

async function countMatches(ctx: RequestContext, filter: string, params: unknown[]): Promise<number> {
  const rows: Array<{ total: string }> = await ctx.em.execute(`select count(*) as total from blueprint b where ${filter}`, params);
  return Number(rows[0]!.total);
}

export interface TrendingEntry {
  blueprint: Blueprint;
  score: number;
  stars: number;
  forks: number;
  executions: number;
}

/**
 * Public blueprints ranked by activity inside the last `windowDays` days: stars given, forks made and
 * executions started in the window, weighted by `trendingWeights`. Blueprints with no activity are left out.
 */
export async function trending(ctx: RequestContext, windowDays: number, limit: number, projection = fullProjection): Promise<TrendingEntry[]> {
  const rows: Array<Record<string, unknown> & { stars: string; forks: string; executions: string; score: string }> = await ctx.em.execute(
    `with since as (select now() - make_interval(days => ?) as t),
          totals as (${windowActivitySql})
     select t.stars, t.forks, t.executions, ${trendingScoreSql.replace(/(stars|forks|executions)/g, 't.$1')} as score, ${projection.sql('b')}
       from totals t join blueprint b on b.id = t.blueprint_id
      where b.visibility = 'public'
      order by score desc, b.stars_count desc, b.id limit ?`,
    [windowDays, limit],
  );
  return rows.map((r) => ({
    blueprint: projection.map(r),
    score: Number(r.score),
    stars: Number(r.stars),
    forks: Number(r.forks),
    executions: Number(r.executions),
  }));
}
