import type { EntityManager } from '@mikro-orm/postgresql';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { fullProjection, type BlueprintProjection } from '../blueprints/blueprint.projection';
import type { Job } from '../platform/area';
import type { RequestContext } from '../platform/context';
import { readWithViewerCheck } from '../platform/graphql/deferred-viewer';
import { asText, executeShaped, type SqlFragment } from '../platform/sql/database';
import { pageBounds, type PageBounds } from './page-bounds';
import type { AppDeps } from '../platform/http/request-context';
import { DEFAULT_WINDOW_DAYS, trendingScoreSql } from './trending';

/**
 * The window the blueprint rows keep counts for (`trending_stars`, `trending_forks`,
 * `trending_executions`, `trending_score`: activity at or after `trending_horizon.horizon`, kept by the
 * triggers of migration 20261124000100). The job keeps the horizon near `now() - this many days`.
 */
export const MAINTAINED_WINDOW_DAYS = DEFAULT_WINDOW_DAYS;

/** The advisory lock the triggers take shared around reading the horizon, and the job exclusively to move it. */
const HORIZON_LOCK = 8262001;
/** How long the job waits for that lock or a blueprint row before it yields to writers (below PostgreSQL's 1 s deadlock check). */
const HORIZON_LOCK_TIMEOUT_MS = 100;

/** Per-kind counts of `trending_signal` rows as `stars`, `forks`, `executions` (principals with a successful run). */
const perKind = (value: string) =>
  `sum(case when kind = 'star' then ${value} else 0 end) as stars, sum(case when kind = 'fork' then ${value} else 0 end) as forks,
   sum(case when kind = 'run' then ${value} else 0 end) as executions`;

/**
 * Per blueprint: distinct principals (never the owner or a team member) whose latest star, fork or
 * successful run (`trending_signal.at`) is in `[from, to)` (`to` null: no end). `from` and `to` are SQL
 * expressions over a CTE named `bounds`.
 */
function activitySql(from: string, to: string | null): string {
  const inRange = (col: string) => `${col} >= ${from}${to ? ` and ${col} < ${to}` : ''}`;
  return `select blueprint_id, ${perKind('1')} from trending_signal, bounds where ${inRange('trending_signal.at')} group by blueprint_id`;
}

/** Between the window start and the horizon, whichever comes first: +1 for a row inside the window, -1 outside. */
const between = (col: string) => `${col} >= least(bounds.since, bounds.horizon) and ${col} < greatest(bounds.since, bounds.horizon)`;
const sign = (col: string) => `case when ${col} >= bounds.since then 1 else -1 end`;

/**
 * `bounds` (the window start `since` and the `horizon`) and `corrected`: what turns a blueprint's
 * maintained counts into its counts inside the window. Signals in `[since, horizon)` are missing from
 * them, signals in `[horizon, since)` are counted but outside the window; at most one of the two ranges
 * is not empty, and the job keeps it to a minute or so of activity.
 */
const correctedSql = `bounds as (select now() - make_interval(days => ${MAINTAINED_WINDOW_DAYS}) as since, horizon from trending_horizon),
  corrected as (
    select blueprint_id, ${perKind(sign('trending_signal.at'))} from trending_signal, bounds where ${between('trending_signal.at')} group by blueprint_id
  )`;

const windowCountsSql = (b: string, c: string) =>
  `${b}.trending_stars + ${c}.stars as stars, ${b}.trending_forks + ${c}.forks as forks, ${b}.trending_executions + ${c}.executions as executions`;

/**
 * Blueprints matching `filter` (over alias `b`) in trending order (window score, then principals with a
 * successful run, then stars (all time), all desc, then newest first; docs/decisions.md),
 * with their window counts, `offset + limit` rows at most: the corrected blueprints with their exact
 * counts, and the best of the rest straight from `blueprint_public_trending_index` (their maintained
 * counts are exact). `filter` must imply `b.visibility = 'public'` for the index to apply.
 */
function ranked(cols: string, filter: string, filterParams: unknown[], positiveOnly: boolean, bounds: PageBounds): SqlFragment {
  const scored = `(select *, ${trendingScoreSql} as score from (
      select ${windowCountsSql('b', 'c')}, b.stars_count as sort_stars, b.created_at as sort_created, ${cols} from corrected c join blueprint b on b.id = c.blueprint_id where ${filter}
    ) w)`;
  const sql = `with ${correctedSql},
    fixed as (select * from ${scored} f ${positiveOnly ? 'where f.score > 0' : ''}),
    -- "not in" over the few corrected ids is one hashed lookup per row, so the index walk stops at the limit.
    rest as (
      select b.trending_stars as stars, b.trending_forks as forks, b.trending_executions as executions, b.stars_count as sort_stars, b.created_at as sort_created, ${cols},
             b.trending_score as score
        from blueprint b
       where ${filter} ${positiveOnly ? 'and b.trending_score > 0' : ''} and b.id not in (select blueprint_id from corrected)
       order by b.trending_score desc, b.trending_executions desc, b.stars_count desc, b.created_at desc, b.id limit ${bounds.end}
    )
  select * from (select * from fixed union all select * from rest) b
   order by b.score desc, b.executions desc, b.sort_stars desc, b.sort_created desc, b.id offset ${bounds.offset} limit ${bounds.limit}`;
  // In the order of the placeholders: `fixed`'s filter, `rest`'s filter and limit, then the page's bounds.
  return { sql, params: [...filterParams, ...filterParams, ...bounds.params.end, ...bounds.params.offset, ...bounds.params.limit] };
}

type Row = Record<string, unknown>;

/** The registry's `sort=trending` page (window `MAINTAINED_WINDOW_DAYS`, every match, quiet ones scoring 0), as a statement. */
export function trendingPageSql(filter: string, params: unknown[], bounds: PageBounds, projection: BlueprintProjection): SqlFragment {
  return ranked(projection.sql('b'), filter, params, false, bounds);
}

export interface TrendingEntry {
  blueprint: BlueprintView;
  score: number;
  stars: number;
  forks: number;
  executions: number;
}

/**
 * Public blueprints ranked by what works inside the last `windowDays` days (docs/decisions.md): distinct
 * principals who starred, forked, or completed a run (never the owner or a team member), weighted by
 * `trendingWeights`. Blueprints with no such activity are left out.
 * The default window reads the maintained counts; any other window counts the raw rows.
 */
export async function trending(ctx: RequestContext, windowDays: number, limit: number, projection = fullProjection): Promise<TrendingEntry[]> {
  const cols = projection.sql('b');
  // Public rows only, nothing read from the viewer: a GraphQL `trending` carries the token lookup (@ViewerAfterRead).
  // The maintained window's statement has no value but its bounds, so it runs prepared, with the usual
  // limit as a constant (`pageBounds`: planned once per connection); another window counts raw rows as text.
  const maintained = windowDays === MAINTAINED_WINDOW_DAYS;
  const bounds = pageBounds({ offset: 0, limit }, ctx.config.limits.pageDefault);
  const rows = await readWithViewerCheck<Row & { stars: string; forks: string; executions: string; score: string }>(
    ctx,
    maintained
      ? ranked(cols, `b.visibility = 'public'`, [], true, bounds)
      : {
          sql: `with bounds as (select now() - make_interval(days => ?) as since),
                totals as (${activitySql('bounds.since', null)})
           select t.stars, t.forks, t.executions, ${trendingScoreSql.replace(/(stars|forks|executions)/g, 't.$1')} as score, ${cols}
             from totals t join blueprint b on b.id = t.blueprint_id
            where b.visibility = 'public'
            order by score desc, t.executions desc, b.stars_count desc, b.created_at desc, b.id limit ?`,
          params: [windowDays, limit],
        },
    maintained ? executeShaped : asText,
  );
  return rows.map((r) => ({
    blueprint: projection.map(r),
    score: Number(r.score),
    stars: Number(r.stars),
    forks: Number(r.forks),
    executions: Number(r.executions),
  }));
}

/**
 * Moves the horizon up to `now() - MAINTAINED_WINDOW_DAYS` and subtracts, from each blueprint's counts,
 * the activity that falls behind it, in one transaction holding the horizon lock (writers wait for it, a
 * few milliseconds). Safe to run at any time and from every instance. Returns how many blueprints changed,
 * or null when it yielded to writers (the next run catches up; reads are exact meanwhile).
 */
export async function advanceTrendingHorizon(em: EntityManager): Promise<number | null> {
  try {
    return await em.transactional(async (tx) => {
      // A writer may hold a blueprint row and wait for this lock (a fork locks its parent before inserting
      // the child): the job gives up long before PostgreSQL's deadlock check would pick a victim.
      await tx.execute(`set local lock_timeout = '${HORIZON_LOCK_TIMEOUT_MS}ms'`);
      await tx.execute('select pg_advisory_xact_lock(?)', [HORIZON_LOCK]);
      // After the lock, so this statement sees every write that counted against the old horizon.
      const rows: Array<{ changed: string | number }> = await tx.execute(
        `with bounds as (
           select horizon as old_horizon, greatest(horizon, now() - make_interval(days => ${MAINTAINED_WINDOW_DAYS})) as new_horizon from trending_horizon
         ),
         behind as (${activitySql('bounds.old_horizon', 'bounds.new_horizon')}),
         changed as (
           update blueprint b set trending_stars = b.trending_stars - a.stars, trending_forks = b.trending_forks - a.forks,
                  trending_executions = b.trending_executions - a.executions
             from behind a where b.id = a.blueprint_id
           returning b.id
         ),
         moved as (update trending_horizon set horizon = (select new_horizon from bounds) returning 1)
         select (select count(*) from changed) as changed, (select count(*) from moved) as moved`,
      );
      return Number(rows[0]?.changed ?? 0);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '55P03' || (err as Error).name === 'LockWaitTimeoutException') return null;
    throw err;
  }
}

/**
 * Advances the horizon every `trendingAdvanceMs` (0: never; reads stay exact, only slower as the
 * corrected range grows). Returns a stop function that waits for a run in flight.
 */
export function startTrendingAdvance(deps: AppDeps, onError: (err: unknown) => void): () => Promise<void> {
  const every = deps.config.limits.trendingAdvanceMs;
  if (every <= 0) return async () => undefined;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = advanceTrendingHorizon(deps.orm.em.fork() as EntityManager)
      .then(() => undefined, onError)
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, every);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The horizon advance as the registry area's job. */
export const trendingAdvance: Job = { name: 'trending horizon advance', start: startTrendingAdvance };
