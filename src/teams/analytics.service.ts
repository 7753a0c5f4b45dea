import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import { getTeam } from './team.service';

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 365;

/** Counts of one day, or of the whole window. Executions end on the day they completed, failed or were abandoned. */
export interface AnalyticsCounts {
  blueprintsCreated: number;
  forks: number;
  starsReceived: number;
  executionsStarted: number;
  executionsCompleted: number;
  executionsFailed: number;
  executionsAbandoned: number;
  /** completed / (completed + failed + abandoned) of the runs that ended; null when none ended. */
  successRate: number | null;
}

export interface AnalyticsDay extends AnalyticsCounts {
  /** A UTC calendar day, `YYYY-MM-DD`. */
  day: string;
}

export interface BlueprintActivity {
  id: string;
  slug: string;
  name: string;
  forks: number;
  stars: number;
  executionsStarted: number;
  /** forks + stars + executions started in the window: the ranking key. */
  activity: number;
}

export interface TeamAnalytics {
  teamId: string;
  windowDays: number;
  from: string;
  to: string;
  totals: AnalyticsCounts;
  days: AnalyticsDay[];
  topBlueprints: BlueprintActivity[];
}

/** `window_days` / `windowDays`: an integer 1..365, default 30; anything else is 400. */
export function parseWindowDays(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_WINDOW_DAYS;
  const n = typeof raw === 'number' ? raw : /^\d{1,4}$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WINDOW_DAYS) throw invalid('window_days', `must be an integer between 1 and ${MAX_WINDOW_DAYS}`);
  return n;
}

function rate(completed: number, failed: number, abandoned: number): number | null {
  const ended = completed + failed + abandoned;
  return ended === 0 ? null : completed / ended;
}

// The window's first instant: midnight UTC, (window - 1) days before today (UTC). `?` = window days.
const windowStart = `(((now() at time zone 'UTC')::date - (?::int - 1))::timestamp at time zone 'UTC')`;

/**
 * A team's analytics over the last `windowDays` UTC days (today included): a per-day series, its totals
 * and the ten most active team blueprints. Exactly two SQL statements after the membership check, whatever
 * the team's size: every count is an aggregate grouped by day. REST and GraphQL both answer this.
 */
export async function teamAnalytics(ctx: RequestContext, teamId: string, rawWindowDays: unknown): Promise<TeamAnalytics> {
  const windowDays = parseWindowDays(rawWindowDays);
  const team = await getTeam(ctx, teamId); // any role; outsiders 404
  const series: Array<Record<string, string | number | null>> = await ctx.em.execute(
    `with tb as (select id, created_at from blueprint where team_id = ?),
          since as (select ${windowStart} as t),
          days as (
            select generate_series((select t from since) at time zone 'UTC', (now() at time zone 'UTC')::date, interval '1 day')::date as day
          ),
          created as (select (created_at at time zone 'UTC')::date as day, count(*) as n from tb where created_at >= (select t from since) group by 1),
          forks as (
            select (l.created_at at time zone 'UTC')::date as day, count(*) as n from lineage_link l join tb on tb.id = l.parent_id
             where l.kind = 'fork' and l.created_at >= (select t from since) group by 1
          ),
          stars as (
            select (s.created_at at time zone 'UTC')::date as day, count(*) as n from star s join tb on tb.id = s.blueprint_id
             where s.created_at >= (select t from since) group by 1
          ),
          started as (
            select (r.started_at at time zone 'UTC')::date as day, count(*) as n from execution_run r join tb on tb.id = r.blueprint_id
             where r.started_at >= (select t from since) group by 1
          ),
          ended as (
            select (r.ended_at at time zone 'UTC')::date as day,
                   count(*) filter (where r.status = 'completed') as completed,
                   count(*) filter (where r.status = 'failed') as failed,
                   count(*) filter (where r.status = 'abandoned') as abandoned
              from execution_run r join tb on tb.id = r.blueprint_id
             where r.ended_at >= (select t from since) and r.status <> 'running' group by 1
          )
     select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(c.n, 0) as created, coalesce(f.n, 0) as forks, coalesce(s.n, 0) as stars,
            coalesce(st.n, 0) as started, coalesce(e.completed, 0) as completed, coalesce(e.failed, 0) as failed, coalesce(e.abandoned, 0) as abandoned
       from days d
       left join created c on c.day = d.day left join forks f on f.day = d.day left join stars s on s.day = d.day
       left join started st on st.day = d.day left join ended e on e.day = d.day
      order by d.day`,
    [team.id, windowDays],
  );
  const top: Array<Record<string, string | number>> = await ctx.em.execute(
    `with since as (select ${windowStart} as t),
          tb as (select id, slug, name from blueprint where team_id = ?),
          forks as (select l.parent_id as id, count(*) as n from lineage_link l join tb on tb.id = l.parent_id where l.kind = 'fork' and l.created_at >= (select t from since) group by 1),
          stars as (select s.blueprint_id as id, count(*) as n from star s join tb on tb.id = s.blueprint_id where s.created_at >= (select t from since) group by 1),
          runs as (select r.blueprint_id as id, count(*) as n from execution_run r join tb on tb.id = r.blueprint_id where r.started_at >= (select t from since) group by 1),
          scored as (
            select tb.id, tb.slug, tb.name, coalesce(f.n, 0) as forks, coalesce(s.n, 0) as stars, coalesce(r.n, 0) as runs,
                   coalesce(f.n, 0) + coalesce(s.n, 0) + coalesce(r.n, 0) as activity
              from tb left join forks f on f.id = tb.id left join stars s on s.id = tb.id left join runs r on r.id = tb.id
          )
     select * from scored where activity > 0 order by activity desc, name, id limit 10`,
    [windowDays, team.id],
  );
  const days: AnalyticsDay[] = series.map((r) => {
    const [completed, failed, abandoned] = [Number(r.completed), Number(r.failed), Number(r.abandoned)];
    return {
      day: String(r.day),
      blueprintsCreated: Number(r.created),
      forks: Number(r.forks),
      starsReceived: Number(r.stars),
      executionsStarted: Number(r.started),
      executionsCompleted: completed,
      executionsFailed: failed,
      executionsAbandoned: abandoned,
      successRate: rate(completed, failed, abandoned),
    };
  });
  const sum = (key: keyof AnalyticsCounts) => days.reduce((acc, d) => acc + (d[key] as number), 0);
  const totals: AnalyticsCounts = {
    blueprintsCreated: sum('blueprintsCreated'),
    forks: sum('forks'),
    starsReceived: sum('starsReceived'),
    executionsStarted: sum('executionsStarted'),
    executionsCompleted: sum('executionsCompleted'),
    executionsFailed: sum('executionsFailed'),
    executionsAbandoned: sum('executionsAbandoned'),
    successRate: rate(sum('executionsCompleted'), sum('executionsFailed'), sum('executionsAbandoned')),
  };
  return {
    teamId: team.id,
    windowDays,
    from: days[0]!.day,
    to: days[days.length - 1]!.day,
    totals,
    days,
    topBlueprints: top.map((r) => ({
      id: String(r.id),
      slug: String(r.slug),
      name: String(r.name),
      forks: Number(r.forks),
      stars: Number(r.stars),
      executionsStarted: Number(r.runs),
      activity: Number(r.activity),
    })),
  };
}

function countsBody(c: AnalyticsCounts) {
  return {
    blueprints_created: c.blueprintsCreated,
    forks: c.forks,
    stars_received: c.starsReceived,
    executions_started: c.executionsStarted,
    executions_completed: c.executionsCompleted,
    executions_failed: c.executionsFailed,
    executions_abandoned: c.executionsAbandoned,
    success_rate: c.successRate,
  };
}

/** The REST body of `GET /api/teams/:id/analytics` (snake_case of {@link TeamAnalytics}). */
export function toAnalyticsBody(a: TeamAnalytics) {
  return {
    team_id: a.teamId,
    window_days: a.windowDays,
    from: a.from,
    to: a.to,
    totals: countsBody(a.totals),
    days: a.days.map((d) => ({ day: d.day, ...countsBody(d) })),
    top_blueprints: a.topBlueprints.map((b) => ({
      id: b.id,
      slug: b.slug,
      name: b.name,
      forks: b.forks,
      stars: b.stars,
      executions_started: b.executionsStarted,
      activity: b.activity,
    })),
  };
}
