import { readableSql } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { columnsOf, mapBlueprint } from '../blueprints/blueprint.sql';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import { trendingScoreSql, trendingWeights } from './trending';

export type RegistrySort = 'relevance' | 'stars' | 'recent' | 'trending';
export const registrySorts: readonly RegistrySort[] = ['relevance', 'stars', 'recent', 'trending'];

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
 */
export async function searchRegistry(ctx: RequestContext, query: RegistryQuery, page: PageRequest): Promise<{ items: Blueprint[]; total: number }> {
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
    params.push(`{${query.tags.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
  }
  const sort = query.sort ?? (q ? 'relevance' : 'stars');
  const order =
    sort === 'relevance' && q
      ? `ts_rank_cd(b.search, websearch_to_tsquery('english', ?)) desc, b.stars_count desc, b.id`
      : sort === 'recent'
        ? 'b.created_at desc, b.id'
        : sort === 'trending'
          ? `${windowScoreSql('b')} desc, b.stars_count desc, b.id`
          : 'b.stars_count desc, b.created_at desc, b.id';
  const orderParams = sort === 'relevance' && q ? [q] : sort === 'trending' ? [DEFAULT_WINDOW_DAYS, DEFAULT_WINDOW_DAYS, DEFAULT_WINDOW_DAYS] : [];
  const rows: Array<Record<string, unknown> & { total: string }> = await ctx.em.execute(
    `select count(*) over () as total, ${columnsOf('b')} from blueprint b
      where ${where.join(' and ')} order by ${order} offset ? limit ?`,
    [...params, ...orderParams, page.offset, page.limit],
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : page.offset > 0 ? await countMatches(ctx, where, params) : 0;
  return { items: rows.map((r) => mapBlueprint(ctx.em, r)), total };
}

/**
 * The trending score of blueprint `alias` over the last `?` days (three `?` parameters: one per kind of
 * activity), as correlated counts on the per-blueprint time indexes.
 */
function windowScoreSql(alias: string): string {
  const since = `now() - make_interval(days => ?)`;
  return `((select count(*) from star s where s.blueprint_id = ${alias}.id and s.created_at >= ${since}) * ${trendingWeights.star}
    + (select count(*) from blueprint f where f.forked_from_id = ${alias}.id and f.created_at >= ${since}) * ${trendingWeights.fork}
    + (select count(*) from execution_run r where r.blueprint_id = ${alias}.id and r.started_at >= ${since}) * ${trendingWeights.execution})`;
}

async function countMatches(ctx: RequestContext, where: string[], params: unknown[]): Promise<number> {
  const rows: Array<{ total: string }> = await ctx.em.execute(`select count(*) as total from blueprint b where ${where.join(' and ')}`, params);
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
export async function trending(ctx: RequestContext, windowDays: number, limit: number): Promise<TrendingEntry[]> {
  const rows: Array<Record<string, unknown> & { stars: string; forks: string; executions: string; score: string }> = await ctx.em.execute(
    `with since as (select now() - make_interval(days => ?) as t),
          activity as (
            select blueprint_id, count(*) as stars, 0 as forks, 0 as executions from star, since where star.created_at >= since.t group by blueprint_id
            union all
            select forked_from_id, 0, count(*), 0 from blueprint, since where forked_from_id is not null and blueprint.created_at >= since.t group by forked_from_id
            union all
            select blueprint_id, 0, 0, count(*) from execution_run, since where execution_run.started_at >= since.t group by blueprint_id
          ),
          totals as (select blueprint_id, sum(stars) as stars, sum(forks) as forks, sum(executions) as executions from activity group by blueprint_id)
     select t.stars, t.forks, t.executions, ${trendingScoreSql.replace(/(stars|forks|executions)/g, 't.$1')} as score, ${columnsOf('b')}
       from totals t join blueprint b on b.id = t.blueprint_id
      where b.visibility = 'public'
      order by score desc, b.stars_count desc, b.id limit ?`,
    [windowDays, limit],
  );
  return rows.map((r) => ({
    blueprint: mapBlueprint(ctx.em, r),
    score: Number(r.score),
    stars: Number(r.stars),
    forks: Number(r.forks),
    executions: Number(r.executions),
  }));
}
