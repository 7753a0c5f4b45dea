/**
 * The first `need` matches of a registry filter in the stars order, as SQL: the rows relevance ranks
 * (registry.service.ts, `relevancePage`). Two ways to read them give the same rows:
 *
 * - _Bitmap_: the full-text and tag GIN indexes find every match, a top-N sort keeps the first `need`.
 *   Cheap while matches are few; for a keyword in every row it reads every row (100,000 heap rows for
 *   `q=serv` at 100,000 blueprints) however small `need` is.
 * - _Walk_: `blueprint_public_stars_index` in order, each row checked against the filter, stopping at the
 *   `need`th match: about `need / density` rows, `need` for a keyword in every row, every public row for a
 *   rare one. The filter sits outside a `limit` subquery, a fence PostgreSQL does not push it through, so
 *   the planner cannot turn the walk back into a bitmap (its row estimates for prefix queries are far off:
 *   2,000 for `serv:*`, which matches 100,000).
 *
 * Which one runs is decided inside the statement. The walk may read at most `need * WALK_REGION` rows (its
 * region); a probe reads `BROAD_SAMPLE` rows spread evenly over the region (their ids from an index-only
 * scan of the stars index) and the walk runs when they predict at least `need * WALK_MARGIN` matches
 * there. If the walk still finds fewer than `need` matches in its region, the bitmap runs after all. So
 * the walk's rows are used only when they are the first `need` matches, which is what the bitmap would
 * have taken: the answer is the same either way, only the cost differs (docs/reads.md, "Registry at
 * 100,000 blueprints").
 */

/**
 * How many rows the walk reads at most, in multiples of `need`: what a walk that comes up short wastes
 * before the bitmap runs. With `WALK_MARGIN`, the walk runs where about 38% of the rows or more match: it
 * did not beat the bitmap at 12% (docs/reads.md).
 */
export const WALK_REGION = 4;
/** Rows of the walk's region the probe reads, evenly spread over it. */
export const BROAD_SAMPLE = 50;
/** The walk runs when the probe predicts at least this many times `need` matches in its region. */
export const WALK_MARGIN = 1.5;

/** The stars order of `blueprint_public_stars_index` (most stars, then newest, then id) for `alias`. */
export const starsOrder = (alias: string) => `${alias}.stars_count desc, ${alias}.created_at desc, ${alias}.id`;

/** `auto` decides by the probe; the others force one way (tests compare them). */
export type TakenMatchesPath = 'auto' | 'walk' | 'bitmap';

export interface TakenMatches {
  /** A statement yielding whole `blueprint` rows, in no particular order. */
  sql: string;
  params: unknown[];
}

/**
 * The first `need` rows of `blueprint b where <filter>` in the stars order (a CTE list and a final select).
 * `readable` is the readability part of `filter` alone: the walk's and the probe's rows satisfy it, and
 * its partial index is the one walked.
 */
export function takenMatches(
  filter: string,
  filterParams: unknown[],
  readable: { sql: string; params: unknown[] },
  need: number,
  path: TakenMatchesPath = 'auto',
): TakenMatches {
  const order = starsOrder('b');
  const bitmap = `select * from blueprint b where ${filter} order by ${order} limit ?`;
  if (path === 'bitmap') return { sql: bitmap, params: [...filterParams, need] };
  const region = need * WALK_REGION;
  const step = Math.max(1, Math.floor(region / BROAD_SAMPLE));
  // The region's ids come from an index-only scan of the stars index; only every `step`th row is read.
  const probe = `probe as (
    select count(*) as n
      from (select b.* from (select s.id, row_number() over () as pos
                               from (select b.id from blueprint b where ${readable.sql} order by ${order} limit ?) s) s
              join blueprint b on b.id = s.id
             where s.pos % ? = 0 offset 0) b
     where ${filter}),\n`;
  const guard = path === 'walk' ? '' : ` and (select n from probe) * ? >= ?`;
  const sql = `with ${path === 'walk' ? '' : probe}walked as materialized (
    select * from (select * from blueprint b where ${readable.sql}${guard} order by ${order} limit ?) b
     where ${filter} order by ${order} limit ?),
  taken as (select * from walked where (select count(*) from walked) >= ?
            union all
            select * from (${bitmap}) x where (select count(*) from walked) < ?)
  select * from taken`;
  const params = [
    ...(path === 'walk' ? [] : [...readable.params, region, step, ...filterParams]),
    ...readable.params,
    ...(path === 'walk' ? [] : [step, Math.ceil(need * WALK_MARGIN)]),
    region,
    ...filterParams,
    need,
    need,
    ...filterParams,
    need,
    need,
  ];
  return { sql, params };
}
