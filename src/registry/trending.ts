/** The trending window when none is asked for, in days. */
export const DEFAULT_WINDOW_DAYS = 7;

/**
 * How much each distinct principal inside the trending window counts (docs/decisions.md): one who
 * starred 1, one who forked 3, one with a successful run (its last step reached) 5. Mirrored by the
 * generated column `blueprint.trending_score` (migration 20261127000300): a change here needs a migration there, and
 * test/integration/trending-rollup.test.ts fails until it has one.
 */
export const trendingWeights = { star: 1, fork: 3, execution: 5 } as const;

export interface WindowActivity {
  /** Distinct principals who starred. */
  stars: number;
  /** Distinct principals who forked. */
  forks: number;
  /** Distinct principals with a successful run. */
  executions: number;
}

/** The trending score of one blueprint's activity inside the window. Mirrored in SQL by `trendingScoreSql`. */
export function trendingScore(a: WindowActivity): number {
  return a.stars * trendingWeights.star + a.forks * trendingWeights.fork + a.executions * trendingWeights.execution;
}

/** The SQL form of `trendingScore` over columns `stars`, `forks`, `executions`. */
export const trendingScoreSql = `(stars * ${trendingWeights.star} + forks * ${trendingWeights.fork} + executions * ${trendingWeights.execution})`;
