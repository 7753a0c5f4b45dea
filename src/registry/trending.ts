/** The trending window when none is asked for, in days. */
export const DEFAULT_WINDOW_DAYS = 7;

/**
 * How much each kind of activity inside the trending window counts. A fork or an execution is a
 * stronger signal of use than a star, so they weigh more. Mirrored by the generated column
 * `blueprint.trending_score` (migration 20261124000100): a change here needs a migration there, and
 * test/integration/trending-rollup.test.ts fails until it has one.
 */
export const trendingWeights = { star: 1, fork: 3, execution: 2 } as const;

export interface WindowActivity {
  stars: number;
  forks: number;
  executions: number;
}

/** The trending score of one blueprint's activity inside the window. Mirrored in SQL by `trendingScoreSql`. */
export function trendingScore(a: WindowActivity): number {
  return a.stars * trendingWeights.star + a.forks * trendingWeights.fork + a.executions * trendingWeights.execution;
}

/** The SQL form of `trendingScore` over columns `stars`, `forks`, `executions`. */
export const trendingScoreSql = `(stars * ${trendingWeights.star} + forks * ${trendingWeights.fork} + executions * ${trendingWeights.execution})`;
