import { defaultLimits, loadConfig } from '../../../src/platform/config';

describe('loadConfig', () => {
  it('has the documented defaults: port 4000 on 0.0.0.0, embedded database, 1 MiB bodies, pages of 20 up to 100', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '0.0.0.0', databaseUrl: undefined, dataDir: '.data', logLevel: 'info', exposeSqlCount: false });
    expect(config.limits).toEqual(defaultLimits);
    expect(defaultLimits).toMatchObject({ bodyBytes: 1024 * 1024, pageDefault: 20, pageMax: 100, lineageDepthMax: 50, agentSessionMs: 30 * 24 * 3600 * 1000 });
  });

  it('reads PORT, HOST, DATABASE_URL, LOG_LEVEL and the named limits from the environment', () => {
    const config = loadConfig({ PORT: '8080', HOST: '127.0.0.1', DATABASE_URL: 'postgres://x/y', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '5', SESSION_CREATES_PER_HOUR: '2', QUERY_DEPTH_MAX: '7' });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: 'postgres://x/y', logLevel: 'warn' });
    expect(config.limits).toMatchObject({ rateLimitPerMinute: 5, sessionCreatesPerHour: 2, queryDepthMax: 7 });
  });

  it.each([['PORT', 'http'], ['PORT', '-1'], ['PORT', '1.5'], ['RATE_LIMIT_PER_MINUTE', 'lots']])('refuses %s=%j with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
