import 'reflect-metadata';
// Before anything imports MikroORM (see the module).
import './platform/sql/orm-contexts';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { gauges, jobs, resolvers, routeModules, schemaHooks } from './modules';
import { defaultEventSettings, type Config } from './platform/config';
import { openDatabase, type Orm } from './platform/sql/database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './platform/sql/embedded-postgres';
import { EventBus } from './platform/live/events';
import { HealthProbe } from './platform/http/health';
import { registerIdempotency } from './platform/http/idempotency';
import { buildGraphQLSchema, mountGraphQL } from './platform/graphql/graphql';
import { settleConnections } from './platform/graphql/graphql-connection';
import { registerGraphiQL } from './platform/http/graphiql';
import { createHttpServer } from './platform/http/http';
import { createRateLimiter, defaultRedisLimiterSettings, type RateLimiter } from './platform/http/rate-limit';
import { registerMetrics } from './platform/http/metrics';
import type { AppDeps } from './platform/http/request-context';
import { viewerFromToken, viewerLookup } from './auth/auth.service';
import { databaseSchema } from './db';

export interface RunningApp {
  /** `http://host:port` the server listens on. */
  url: string;
  port: number;
  http: FastifyInstance;
  deps: AppDeps;
  /** Drains HTTP and WebSocket connections, then closes the event listener, the ORM and any embedded database. */
  close(): Promise<void>;
}

let schemaPromise: Promise<GraphQLSchema> | undefined;
/** The schema is the same for every app in a process; build it once. */
export function graphQLSchema(): Promise<GraphQLSchema> {
  schemaPromise ??= buildGraphQLSchema(resolvers).then((schema) => {
    for (const hook of schemaHooks) hook(schema);
    settleConnections(schema);
    return schema;
  });
  return schemaPromise;
}

const EMBEDDED_DATABASE = 'blueprint_workshop';

/** Boots the whole service: database (embedded when no URL), migrations, events, REST, GraphQL, WebSocket. */
export async function startApp(config: Config): Promise<RunningApp> {
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: Number(process.env.EMBEDDED_PG_PORT ?? 54329), log: (m) => console.log(m) });
    const url = new URL(embedded.url);
    url.pathname = `/${EMBEDDED_DATABASE}`;
    databaseUrl = url.toString();
  }
  let orm: Orm | undefined;
  let events: EventBus | undefined;
  let limiter: RateLimiter | undefined;
  const health = new HealthProbe(databaseUrl, config.database.healthzTimeoutMs);
  try {
    let log: FastifyInstance['log'] | undefined;
    orm = await openDatabase(databaseUrl, databaseSchema, { settings: config.database, warn: (msg) => (log ? log.warn(msg) : console.warn(msg)) });
    const eventSettings = config.events ?? defaultEventSettings;
    if (config.database.transactionPooling && !eventSettings.natsUrl)
      throw new Error('DB_TRANSACTION_POOLING=1 needs NATS_URL: LISTEN/NOTIFY does not work through a transaction pooler');
    events = new EventBus(databaseUrl, (msg, err) => (log ? log.error({ err }, msg) : console.error(msg, err ?? '')), eventSettings);
    await events.start();
    // The relay publishes a write's outbox rows as soon as the write's transaction commits.
    const bus = events;
    orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: () => bus.committed() });
    limiter = createRateLimiter(config.redisUrl, config.redisKeyPrefix ?? 'bw:rate:', {
      timeoutMs: config.redisTimeoutMs ?? defaultRedisLimiterSettings.timeoutMs,
      probeMs: config.redisProbeMs ?? defaultRedisLimiterSettings.probeMs,
      onStateChange: (state, err) => {
        const msg = state === 'up' ? 'redis answers: rate limits are shared again' : 'redis does not answer: rate limits are counted in this process';
        if (state === 'up') (log ?? console).info(msg);
        else if (log) log.warn({ err }, msg);
        else console.warn(msg);
      },
    });
    // Where the buckets live is known before the first request (one ping; at most the Redis timeouts).
    await limiter.ready();
    const deps: AppDeps = { orm, config, events, limiter, resolveViewer: viewerFromToken, viewerLookup };
    const http = await createHttpServer(deps, health);
    log = http.log;
    registerIdempotency(http, deps);
    registerMetrics(http, deps, gauges);
    registerGraphiQL(http);
    for (const routes of routeModules) routes(http, deps);
    // Jobs run while the server is up, and stop (awaited) when it closes, before the database goes away.
    const stopJobs: Array<() => Promise<void>> = [];
    http.addHook('onReady', async () => {
      for (const job of jobs) stopJobs.push(job.start(deps, (err) => http.log.error({ err }, `${job.name} failed`)));
    });
    http.addHook('onClose', async () => {
      await Promise.all(stopJobs.map((stop) => stop()));
    });
    const graphql = await mountGraphQL(http, deps, await graphQLSchema());
    await http.listen({ port: config.port, host: config.host });
    const address = http.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const ormRef = orm;
    const eventsRef = events;
    const limiterRef = limiter;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host}:${port}`,
      port,
      http,
      deps,
      // Idempotent: SIGTERM then SIGINT (or a test's cleanup after a shutdown test) waits for the same drain.
      close() {
        const step = (name: string) => http.log.debug(`shutdown: ${name}`);
        closing ??= (async () => {
          await graphql.stop();
          step('http and websocket drained');
          await eventsRef.stop();
          await health.close();
          step('event listener closed');
          await limiterRef.close();
          step('rate limiter closed');
          await ormRef.close();
          step('database pool closed');
          await embedded?.stop();
          step('embedded database stopped');
        })();
        return closing;
      },
    };
  } catch (err) {
    await limiter?.close();
    await events?.stop();
    await health.close();
    await orm?.close();
    await embedded?.stop();
    throw err;
  }
}
