import 'reflect-metadata';
import { startApp, type RunningApp } from '../../src/app';
import {
  defaultDatabaseSettings,
  defaultEventSettings,
  defaultLimits,
  type Config,
  type DatabaseSettings,
  type EventSettings,
  type Limits,
} from '../../src/platform/config';
import { createTestDatabase } from './database';
import { RestClient } from './rest';
import { GraphQLClient } from './graphql';

export interface TestServer {
  app: RunningApp;
  url: string;
  databaseUrl: string;
  rest: RestClient;
  gql: GraphQLClient;
  close(): Promise<void>;
}

/**
 * Boots the real server on a random port over its own fresh database. Tests talk to it over HTTP and
 * WebSocket only. `close()` drains it and drops the database.
 */
export async function startTestServer(
  options: {
    limits?: Partial<Limits>;
    database?: Partial<DatabaseSettings>;
    databaseUrl?: string;
    redisUrl?: string;
    redisKeyPrefix?: string;
    publicUrl?: string;
    metricsToken?: string;
    logLevel?: string;
    logStream?: Config['logStream'];
    events?: Partial<EventSettings>;
  } = {},
): Promise<TestServer> {
  const db = options.databaseUrl ? { url: options.databaseUrl, drop: async () => undefined } : await createTestDatabase();
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    dataDir: '.data',
    logLevel: options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
    logStream: options.logStream,
    redisUrl: options.redisUrl,
    redisKeyPrefix: options.redisKeyPrefix ?? 'bw:test:',
    publicUrl: options.publicUrl,
    metricsToken: options.metricsToken,
    exposeSqlCount: true,
    limits: { ...defaultLimits, rateLimitPerMinute: 100_000, sessionCreatesPerHour: 100_000, metricsPerMinute: 100_000, ...options.limits },
    // Every test run doubles as the starvation guard: a second connection inside a transaction fails.
    database: { ...defaultDatabaseSettings, strictTransactions: true, ...options.database },
    events: { ...defaultEventSettings, ...options.events },
  };
  const app = await startApp(config);
  return {
    app,
    url: app.url,
    databaseUrl: db.url,
    rest: new RestClient(app.url),
    gql: new GraphQLClient(app.url),
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
