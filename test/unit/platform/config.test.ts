import { defaultDatabaseSettings, defaultLimits, loadConfig } from '../../../src/platform/config';

describe('loadConfig', () => {
  it('has the documented defaults: port 4000 on 0.0.0.0, embedded database, 1 MiB bodies, pages of 20 up to 100', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '0.0.0.0', databaseUrl: undefined, dataDir: '.data', logLevel: 'info', exposeSqlCount: false });
    expect(config.limits).toEqual(defaultLimits);
    expect(defaultLimits).toMatchObject({ bodyBytes: 1024 * 1024, pageDefault: 20, pageMax: 100, lineageDepthMax: 50, agentSessionMs: 30 * 24 * 3600 * 1000 });
  });

  it('reads PORT, HOST, DATABASE_URL, LOG_LEVEL and the named limits from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://x/y',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '5',
      SESSION_CREATES_PER_HOUR: '2',
      QUERY_DEPTH_MAX: '7',
    });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: 'postgres://x/y', logLevel: 'warn' });
    expect(config.limits).toMatchObject({ rateLimitPerMinute: 5, sessionCreatesPerHour: 2, queryDepthMax: 7 });
  });

  it('reads the database pool, timeouts and idempotency values (docs/reliability.md), with their defaults', () => {
    expect(loadConfig({}).database).toEqual(defaultDatabaseSettings);
    expect(defaultDatabaseSettings).toMatchObject({
      poolMax: 10,
      statementTimeoutMs: 30_000,
      lockTimeoutMs: 10_000,
      strictTransactions: false,
      idempotencyKeyMs: 24 * 3600 * 1000,
    });
    const config = loadConfig({
      DB_POOL_MAX: '2',
      DB_STATEMENT_TIMEOUT_MS: '1000',
      DB_LOCK_TIMEOUT_MS: '500',
      HEALTHZ_TIMEOUT_MS: '300',
      RETRY_AFTER_SECONDS: '9',
      DB_STRICT_TRANSACTIONS: '1',
      IDEMPOTENCY_KEY_MS: '60000',
      DB_ACQUIRE_TIMEOUT_MS: '2000',
    });
    expect(config.database).toEqual({
      poolMax: 2,
      acquireTimeoutMs: 2000,
      statementTimeoutMs: 1000,
      lockTimeoutMs: 500,
      healthzTimeoutMs: 300,
      retryAfterSeconds: 9,
      strictTransactions: true,
      idempotencyKeyMs: 60000,
      transactionPooling: false,
    });
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '-1'],
    ['PORT', '1.5'],
    ['RATE_LIMIT_PER_MINUTE', 'lots'],
    ['DB_LOCK_TIMEOUT_MS', 'soon'],
  ])('refuses %s=%j with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
