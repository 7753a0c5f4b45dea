import type { BlueprintView } from '../blueprints/blueprint.view';
import DataLoader from 'dataloader';
import { viewerTeamRoles, canEditWith, guardOf } from '../blueprints/access';
import type { RequestContext } from '../platform/context';
import type { PageRequest } from '../platform/pagination';
import { ExecutionRun } from './execution-run.entity';

export interface RunPage {
  items: ExecutionRun[];
  total: number;
}

/** A blueprint's execution stats, from the counters kept on its row. */
export interface ExecutionStats {
  started: number;
  completed: number;
  failed: number;
  abandoned: number;
  running: number;
  successRate: number | null;
}

export function executionStatsOf(bp: BlueprintView): ExecutionStats {
  const ended = bp.executionsCompleted + bp.executionsFailed + bp.executionsAbandoned;
  return {
    started: bp.executionsStarted,
    completed: bp.executionsCompleted,
    failed: bp.executionsFailed,
    abandoned: bp.executionsAbandoned,
    running: Math.max(0, bp.executionsStarted - ended),
    successRate: bp.successRate,
  };
}

/**
 * Runs of many blueprints for one page request, newest first, in one SQL statement whatever the number
 * of blueprints: the owner and team editors of a blueprint see all of its runs, everyone else only their
 * own (anonymous callers none).
 */
function runPageLoader(ctx: RequestContext, page: PageRequest): DataLoader<BlueprintView, RunPage, string> {
  return ctx.loaders.get(
    `execution.runPage:${page.limit}:${page.offset}`,
    () =>
      new DataLoader<BlueprintView, RunPage, string>(
        async (blueprints) => {
          const viewer = ctx.viewer;
          if (!viewer) return blueprints.map(() => ({ items: [], total: 0 }));
          const roles = await viewerTeamRoles(ctx);
          const seeAll = blueprints.map((bp) => canEditWith(viewer, roles, guardOf(bp)));
          const rows: Array<Record<string, unknown> & { p_id: string; p_total: string | number; id: string | null }> = await ctx.em.execute(
            `select p.bp_id as p_id, c.total as p_total, x.*
             from unnest(?::uuid[], ?::boolean[]) as p(bp_id, see_all)
             cross join lateral (select count(*) as total from execution_run r
                                  where r.blueprint_id = p.bp_id and (p.see_all or r.principal_id = ?)) c
             left join lateral (select * from execution_run r
                                 where r.blueprint_id = p.bp_id and (p.see_all or r.principal_id = ?)
                                 order by r.started_at desc, r.id offset ? limit ?) x on true`,
            [`{${blueprints.map((b) => b.id).join(',')}}`, `{${seeAll.join(',')}}`, viewer.principalId, viewer.principalId, page.offset, page.limit],
          );
          const pages = new Map<string, RunPage>(blueprints.map((b) => [b.id, { items: [], total: 0 }]));
          for (const row of rows) {
            const entry = pages.get(row.p_id)!;
            entry.total = Number(row.p_total);
            if (row.id !== null) {
              const { p_id: _id, p_total: _total, ...run } = row;
              entry.items.push(ctx.em.map(ExecutionRun, run));
            }
          }
          return blueprints.map((b) => pages.get(b.id)!);
        },
        { cacheKeyFn: (bp) => bp.id },
      ),
  );
}

/** The runs of `bp` the viewer may see, newest first, with their total. */
export function executionsOf(ctx: RequestContext, bp: BlueprintView, page: PageRequest): Promise<RunPage> {
  return runPageLoader(ctx, page).load(bp);
}
