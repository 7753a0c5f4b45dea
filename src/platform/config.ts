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
  /** Largest request body in bytes; more is a 413 PAYLOAD_TOO_LARGE. Also the largest WebSocket message (closed with 1009). */
  bodyBytes: number;
  /** Deepest GraphQL selection set accepted, for HTTP and WebSocket alike. */
  queryDepthMax: number;
  /**
   * Most nodes a GraphQL operation could return (GitHub's rule: the page sizes multiplied down each path
   * of paged fields, summed), for HTTP and WebSocket alike.
   */
  queryNodeMax: number;
  /** Most lexical tokens in one GraphQL document; the parser stops there. */
  queryTokensMax: number;
  /** Most directives written in one GraphQL document. */
  queryDirectivesMax: number;
  /** Deepest JSON nesting accepted in a body, a WebSocket message or GraphQL variables. */
  jsonDepthMax: number;
  /** Most subscriptions running at once on one WebSocket. */
  wsSubscriptionsMax: number;
  /**
   * The work budget of one GraphQL answer (an HTTP operation, a WebSocket operation, or one event of a
   * subscription): the bytes of stored plans its plan fields (`modules`, `steps`, `configuration`,
   * `designSystem`) may return; a blueprint's plan fields together count its whole plan once, an alias
   * of one of them counts it again (docs/limits.md).
   */
  responsePlanBytesMax: number;
  /**
   * The plan bytes one caller's GraphQL answers in flight at once may carry together (an account, the agent
   * sessions of one address, or an address; per instance; 0: no limit). A charge over it refuses its answer
   * with RATE_LIMITED before any plan is read; one answer alone always gets its own budget (docs/limits.md).
   */
  responsePlanBytesInFlightMax: number;
  /** Most WebSocket connections open at once per bearer token (per server instance). */
  wsConnectionsPerToken: number;
  /** Most WebSocket connections open at once per IP address, counted from the upgrade (per instance; 0: no cap). */
  wsConnectionsPerIp: number;
  /** Most anonymous WebSocket connections (no token) open at once per IP address (per instance; 0: no cap). */
  wsAnonymousConnectionsPerIp: number;
  /** Most WebSocket connections open at once per account, whatever its tokens (per instance; 0: no cap). */
  wsConnectionsPerAccount: number;
  /** Most operations running at once over all WebSockets of one IP address (per instance; 0: no cap). */
  wsSubscriptionsPerIp: number;
  /** Most operations running at once over all WebSockets of one account (per instance; 0: no cap). */
  wsSubscriptionsPerAccount: number;
  /** WebSocket keep-alive: every socket is pinged this often, and one that missed the last ping is terminated. */
  wsKeepAliveMs: number;
  /** Most aliases in one GraphQL operation. */
  queryAliasMax: number;
  /** Requests per minute per bearer token (or per IP when anonymous). */
  rateLimitPerMinute: number;
  /** `GET /metrics` per IP per minute (its own bucket; a scrape reads every gauge). */
  metricsPerMinute: number;
  /** `POST /api/agent/sessions` per IP per hour. */
  sessionCreatesPerHour: number;
  /** An operation with no submission for this long is `expired`. */
  operationIdleMs: number;
  /** An execution run with no step for this long is `abandoned`. */
  executionIdleMs: number;
  /** How often each instance sweeps idle execution runs to `abandoned` (their stats lag at most this much). */
  executionSweepMs: number;
  /**
   * How often each instance moves the trending horizon up to a week ago (0: never). Trending reads stay
   * exact either way; they correct from raw rows the activity between the horizon and their window.
   */
  trendingAdvanceMs: number;
  /** Lifetime of an agent session token. */
  agentSessionMs: number;
  /** Lifetime of a sign-in token (`bws_`, from sign-up and sign-in). */
  signInSessionMs: number;
  /** Failed sign-ins per username, and per IP address, inside `signInWindowMs` before sign-in answers 429. */
  signInFailuresPerUsername: number;
  signInFailuresPerIp: number;
  signInWindowMs: number;
  /** Longest `expires_in_days` an account token may ask for. */
  accountTokenDaysMax: number;
  /** Most live account tokens (`bwu_`, OAuth-issued included) one person holds; one more is 409 CONFLICT. */
  accountTokensMax: number;
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

/** The connection pool and the database-side timeouts (docs/reliability.md explains each). */
export interface DatabaseSettings {
  /** Connections in the pool. A request holds at most one at a time (see `strictTransactions`). */
  poolMax: number;
  /** How long a request waits for a free pooled connection before it is answered 503 UNAVAILABLE. */
  acquireTimeoutMs: number;
  /** PostgreSQL `statement_timeout` of every pooled connection: a longer statement is cancelled (503). */
  statementTimeoutMs: number;
  /** PostgreSQL `lock_timeout`: a statement waiting longer for a row lock is cancelled (503, retry). */
  lockTimeoutMs: number;
  /** `/healthz` answers 503 when its own connection does not answer `select 1` within this. */
  healthzTimeoutMs: number;
  /** Seconds a 503 UNAVAILABLE asks the client to wait (`Retry-After`). */
  retryAfterSeconds: number;
  /**
   * Guard against pool starvation: taking a second pooled connection while the same request's
   * transaction is open throws (and logs) instead of silently waiting on the pool. Tests turn it on.
   */
  strictTransactions: boolean;
  /** How long an `Idempotency-Key` is remembered (per principal). */
  idempotencyKeyMs: number;
  /**
   * The server reaches PostgreSQL through a pooler in transaction mode (`DB_TRANSACTION_POOLING=1`, e.g.
   * PgBouncer): no named prepared statements, no session settings at connect (set `statement_timeout` and
   * `lock_timeout` on the role instead), and `NATS_URL` is required (LISTEN needs a session).
   */
  transactionPooling?: boolean;
}

/** How events leave the writing transaction (docs/scale.md, docs/scale.md). */
export interface EventSettings {
  /** Set: the outbox relay publishes to NATS JetStream and every instance consumes from it. Unset: LISTEN/NOTIFY. */
  natsUrl?: string;
  /** The deployment's JetStream stream; its subjects are `<stream in lower case>.<topic>`. */
  natsStream: string;
  /** Off (`EVENT_PUBLISHING=off`) writes no outbox rows at all: only the scale bench's floor uses it. */
  publishing: boolean;
  /** How often each instance's relay looks for unsent rows nobody kicked it for (e.g. of a killed instance). */
  relayPollMs: number;
  /**
   * While events flow (a pass published in the last 50 ms), how long the relay waits after a kick before its
   * pass, so that the commits of concurrent writes share one pass (0: never waits). A write waits for its
   * pass, so under load this is added to its answer; a lone write's events go out at once.
   */
  relayLingerMs: number;
  /** Sent outbox rows older than this are pruned. */
  outboxRetentionMs: number;
}

export const defaultEventSettings: EventSettings = {
  natsStream: 'BW_EVENTS',
  publishing: true,
  relayPollMs: 1000,
  relayLingerMs: 20,
  outboxRetentionMs: 60 * 60 * 1000,
};

export const defaultDatabaseSettings: DatabaseSettings = {
  poolMax: 10,
  acquireTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 10_000,
  healthzTimeoutMs: 500,
  retryAfterSeconds: 5,
  strictTransactions: false,
  idempotencyKeyMs: 24 * 60 * 60 * 1000,
  transactionPooling: false,
};

export interface Config {
  port: number;
  host: string;
  /** Unset: an embedded PostgreSQL under `dataDir` is started. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: string;
  /** Unset: rate-limit buckets live in this process; set: in Redis, shared by every instance. */
  redisUrl?: string;
  /** Prefix of this deployment's Redis keys (instances sharing buckets use the same one). */
  redisKeyPrefix?: string;
  /**
   * Longest wait for Redis (connecting, or answering one hit) before the hit counts in this process instead;
   * Redis is then skipped until a ping answers again (docs/reliability.md). Default 500.
   */
  redisTimeoutMs?: number;
  /** How often Redis is pinged, to notice an outage without traffic and its end. Default 1000. */
  redisProbeMs?: number;
  /** Set: `GET /metrics` answers only `Authorization: Bearer <metricsToken>`. Unset: it is public. */
  metricsToken?: string;
  /** Adds `x-sql-statements` to responses (tests and benchmarks, never production). */
  exposeSqlCount: boolean;
  /**
   * The origin clients reach the service at (`PUBLIC_URL`, e.g. `https://blueprints.example.com`): the OAuth
   * issuer and the MCP resource are named after it. Unset: the origin of each request (`Host` header).
   */
  publicUrl?: string;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  limits: Limits;
  database: DatabaseSettings;
  /** Absent: `defaultEventSettings` (LISTEN/NOTIFY, no NATS). */
  events?: EventSettings;
}

export const defaultLimits: Limits = {
  pageDefault: 20,
  pageMax: 100,
  lineageDepthMax: 50,
  bodyBytes: 1024 * 1024,
  queryDepthMax: 15,
  queryNodeMax: 500_000,
  queryTokensMax: 5_000,
  queryDirectivesMax: 50,
  jsonDepthMax: 64,
  wsSubscriptionsMax: 100,
  responsePlanBytesMax: 2 * 1024 * 1024,
  responsePlanBytesInFlightMax: 2 * 1024 * 1024,
  wsConnectionsPerToken: 20,
  wsConnectionsPerIp: 200,
  wsAnonymousConnectionsPerIp: 20,
  wsConnectionsPerAccount: 40,
  wsSubscriptionsPerIp: 1000,
  wsSubscriptionsPerAccount: 500,
  wsKeepAliveMs: 12_000,
  queryAliasMax: 30,
  rateLimitPerMinute: 600,
  metricsPerMinute: 60,
  sessionCreatesPerHour: 30,
  operationIdleMs: 24 * 60 * 60 * 1000,
  executionIdleMs: 24 * 60 * 60 * 1000,
  executionSweepMs: 60 * 1000,
  trendingAdvanceMs: 60 * 1000,
  agentSessionMs: 30 * 24 * 60 * 60 * 1000,
  signInSessionMs: 14 * 24 * 60 * 60 * 1000,
  signInFailuresPerUsername: 5,
  signInFailuresPerIp: 20,
  signInWindowMs: 15 * 60 * 1000,
  accountTokenDaysMax: 366,
  accountTokensMax: 50,
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
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'bw:rate:',
    redisTimeoutMs: Math.max(1, intFromEnv(env, 'REDIS_TIMEOUT_MS', 500)),
    redisProbeMs: Math.max(10, intFromEnv(env, 'REDIS_PROBE_MS', 1000)),
    metricsToken: env.METRICS_TOKEN || undefined,
    exposeSqlCount: env.EXPOSE_SQL_COUNT === '1',
    publicUrl: env.PUBLIC_URL || undefined,
    limits: {
      ...defaultLimits,
      pageMax: intFromEnv(env, 'PAGE_MAX', defaultLimits.pageMax),
      rateLimitPerMinute: intFromEnv(env, 'RATE_LIMIT_PER_MINUTE', defaultLimits.rateLimitPerMinute),
      metricsPerMinute: intFromEnv(env, 'METRICS_PER_MINUTE', defaultLimits.metricsPerMinute),
      sessionCreatesPerHour: intFromEnv(env, 'SESSION_CREATES_PER_HOUR', defaultLimits.sessionCreatesPerHour),
      accountTokensMax: intFromEnv(env, 'ACCOUNT_TOKENS_MAX', defaultLimits.accountTokensMax),
      queryDepthMax: intFromEnv(env, 'QUERY_DEPTH_MAX', defaultLimits.queryDepthMax),
      queryNodeMax: intFromEnv(env, 'QUERY_NODE_MAX', defaultLimits.queryNodeMax),
      wsSubscriptionsMax: intFromEnv(env, 'WS_SUBSCRIPTIONS_MAX', defaultLimits.wsSubscriptionsMax),
      responsePlanBytesMax: intFromEnv(env, 'RESPONSE_PLAN_BYTES_MAX', defaultLimits.responsePlanBytesMax),
      responsePlanBytesInFlightMax: intFromEnv(env, 'RESPONSE_PLAN_BYTES_IN_FLIGHT_MAX', defaultLimits.responsePlanBytesInFlightMax),
      wsConnectionsPerToken: intFromEnv(env, 'WS_CONNECTIONS_PER_TOKEN', defaultLimits.wsConnectionsPerToken),
      wsConnectionsPerIp: intFromEnv(env, 'WS_CONNECTIONS_PER_IP', defaultLimits.wsConnectionsPerIp),
      wsAnonymousConnectionsPerIp: intFromEnv(env, 'WS_ANONYMOUS_CONNECTIONS_PER_IP', defaultLimits.wsAnonymousConnectionsPerIp),
      wsConnectionsPerAccount: intFromEnv(env, 'WS_CONNECTIONS_PER_ACCOUNT', defaultLimits.wsConnectionsPerAccount),
      wsSubscriptionsPerIp: intFromEnv(env, 'WS_SUBSCRIPTIONS_PER_IP', defaultLimits.wsSubscriptionsPerIp),
      wsSubscriptionsPerAccount: intFromEnv(env, 'WS_SUBSCRIPTIONS_PER_ACCOUNT', defaultLimits.wsSubscriptionsPerAccount),
      wsKeepAliveMs: intFromEnv(env, 'WS_KEEP_ALIVE_MS', defaultLimits.wsKeepAliveMs),
    },
    database: {
      poolMax: Math.max(1, intFromEnv(env, 'DB_POOL_MAX', defaultDatabaseSettings.poolMax)),
      acquireTimeoutMs: intFromEnv(env, 'DB_ACQUIRE_TIMEOUT_MS', defaultDatabaseSettings.acquireTimeoutMs),
      statementTimeoutMs: intFromEnv(env, 'DB_STATEMENT_TIMEOUT_MS', defaultDatabaseSettings.statementTimeoutMs),
      lockTimeoutMs: intFromEnv(env, 'DB_LOCK_TIMEOUT_MS', defaultDatabaseSettings.lockTimeoutMs),
      healthzTimeoutMs: intFromEnv(env, 'HEALTHZ_TIMEOUT_MS', defaultDatabaseSettings.healthzTimeoutMs),
      retryAfterSeconds: intFromEnv(env, 'RETRY_AFTER_SECONDS', defaultDatabaseSettings.retryAfterSeconds),
      strictTransactions: env.DB_STRICT_TRANSACTIONS === '1',
      idempotencyKeyMs: intFromEnv(env, 'IDEMPOTENCY_KEY_MS', defaultDatabaseSettings.idempotencyKeyMs),
      transactionPooling: env.DB_TRANSACTION_POOLING === '1',
    },
    events: {
      natsUrl: env.NATS_URL || undefined,
      natsStream: env.NATS_STREAM || defaultEventSettings.natsStream,
      publishing: env.EVENT_PUBLISHING !== 'off',
      relayPollMs: Math.max(10, intFromEnv(env, 'OUTBOX_POLL_MS', defaultEventSettings.relayPollMs)),
      relayLingerMs: Math.min(100, Math.max(0, intFromEnv(env, 'OUTBOX_LINGER_MS', defaultEventSettings.relayLingerMs))),
      outboxRetentionMs: intFromEnv(env, 'OUTBOX_RETENTION_MS', defaultEventSettings.outboxRetentionMs),
    },
  };
}
