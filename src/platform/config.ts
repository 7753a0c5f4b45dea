/**
 * Process configuration, read once from the environment. Every limit the API enforces is a named value
 * here so that the README can list them and tests can lower them.
 */
export interface Limits {
  /** Default page size for REST `limit` and GraphQL `first`. */
  pageDefault: number;
  /** Largest page size a caller may ask for; more is a 400 VALIDATION_FAILED. */
  pageMax: number;
  /** Deepest lineage traversal (`lineage(depth)`). */
  lineageDepthMax: number;
  /** Largest request body in bytes; more is a 413 PAYLOAD_TOO_LARGE. */
  bodyBytes: number;
  /** Deepest GraphQL selection set accepted, for HTTP and WebSocket alike. */
  queryDepthMax: number;
  /** Highest estimated GraphQL query cost (each field 1, lists multiplied by their page size). */
  queryCostMax: number;
  /** Most aliases in one GraphQL operation. */
  queryAliasMax: number;
  /** Requests per minute per bearer token (or per IP when anonymous). */
  rateLimitPerMinute: number;
  /** `POST /api/agent/sessions` per IP per hour. */
  sessionCreatesPerHour: number;
  /** An operation with no submission for this long is `expired`. */
  operationIdleMs: number;
  /** An execution run with no step for this long is `abandoned`. */
  executionIdleMs: number;
  /** How often each instance sweeps idle execution runs to `abandoned` (their stats lag at most this much). */
  executionSweepMs: number;
  /** Lifetime of an agent session token. */
  agentSessionMs: number;
  /** Plan size bounds (docs/api.md). */
  planMaxModules: number;
  planMaxSteps: number;
  planMaxBytes: number;
  /** Longest changelog entry title and body, in characters. */
  changelogTitleMax: number;
  changelogBodyMax: number;
  /** Longest broadcast message, in characters. */
  broadcastMessageMax: number;
  /**
   * Events queued for one live subscription whose client reads too slowly. Past it the queue is dropped;
   * `broadcastReceived` then re-reads its durable inbox rows from its cursor, other subscriptions end.
   */
  liveQueueMax: number;
  /** Most nodes one architecture holds. */
  architectureMaxNodes: number;
  /** Most manual edges one architecture holds (computed lineage edges are not counted). */
  architectureMaxEdges: number;
}

export interface Config {
  port: number;
  host: string;
  /** Unset: an embedded PostgreSQL under `dataDir` is started. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: string;
  /** Adds `x-sql-statements` to responses (tests and benchmarks, never production). */
  exposeSqlCount: boolean;
  limits: Limits;
}

export const defaultLimits: Limits = {
  pageDefault: 20,
  pageMax: 100,
  lineageDepthMax: 50,
  bodyBytes: 1024 * 1024,
  queryDepthMax: 15,
  queryCostMax: 20_000,
  queryAliasMax: 30,
  rateLimitPerMinute: 600,
  sessionCreatesPerHour: 30,
  operationIdleMs: 24 * 60 * 60 * 1000,
  executionIdleMs: 24 * 60 * 60 * 1000,
  executionSweepMs: 60 * 1000,
  agentSessionMs: 30 * 24 * 60 * 60 * 1000,
  planMaxModules: 500,
  planMaxSteps: 5000,
  planMaxBytes: 1024 * 1024,
  changelogTitleMax: 200,
  changelogBodyMax: 100_000,
  broadcastMessageMax: 10_000,
  liveQueueMax: 1000,
  architectureMaxNodes: 500,
  architectureMaxEdges: 2000,
};

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intFromEnv(env, 'PORT', 4000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || '.data',
    logLevel: env.LOG_LEVEL || 'info',
    exposeSqlCount: env.EXPOSE_SQL_COUNT === '1',
    limits: {
      ...defaultLimits,
      pageMax: intFromEnv(env, 'PAGE_MAX', defaultLimits.pageMax),
      rateLimitPerMinute: intFromEnv(env, 'RATE_LIMIT_PER_MINUTE', defaultLimits.rateLimitPerMinute),
      sessionCreatesPerHour: intFromEnv(env, 'SESSION_CREATES_PER_HOUR', defaultLimits.sessionCreatesPerHour),
      queryDepthMax: intFromEnv(env, 'QUERY_DEPTH_MAX', defaultLimits.queryDepthMax),
      queryCostMax: intFromEnv(env, 'QUERY_COST_MAX', defaultLimits.queryCostMax),
    },
  };
}
