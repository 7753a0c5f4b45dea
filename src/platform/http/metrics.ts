import type { ApolloServerPlugin } from '@apollo/server';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getOperationAST, type DocumentNode } from 'graphql';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AreaGauge } from '../area';
import type { EventBus } from '../live/events';
import { outboxBacklog } from '../live/outbox';
import { AppError } from '../errors';
import { metricsSchema } from './platform.schemas';
import { bearerFrom } from '../sql/tokens';
import type { AppDeps } from './request-context';

/**
 * The service's Prometheus metrics, one registry per app (tests run several apps in one process).
 * Everything is measured where it happens: HTTP in Fastify hooks, GraphQL operations in an Apollo plugin
 * and at graphql-ws subscribe, event lag and live subscribers in the EventBus; each area's own gauges
 * (`AreaModule.gauges`, e.g. the inbox backlog) are read once per scrape.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly sqlStatements = new Histogram({
    name: 'http_request_sql_statements',
    help: 'SQL statements issued by one HTTP request, by route',
    labelNames: ['route'],
    buckets: [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144],
    registers: [this.registry],
  });
  readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations by name and type (HTTP and graphql-ws), and whether they answered errors',
    labelNames: ['operation_name', 'operation_type', 'outcome'],
    registers: [this.registry],
  });
  /** graphql-ws subscriptions streaming right now on this instance. */
  liveSubscribers = 0;
  /**
   * graphql-ws subscriptions that have started streaming since the app started (never decreases): a
   * subscription counted here listens, so a test waits for this instead of sleeping.
   */
  subscriptionsStarted = 0;
  /** graphql-ws subscriptions that stopped streaming since the app started (never decreases). */
  subscriptionsEnded = 0;
  readonly eventLag = new Histogram({
    name: 'event_delivery_lag_seconds',
    help: 'Time from the start of the writing transaction to the event reaching this instance through the backplane, by topic',
    labelNames: ['topic'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(deps: AppDeps, gauges: readonly AreaGauge[] = []) {
    collectDefaultMetrics({ register: this.registry });
    const events: EventBus = deps.events;
    const liveSubscribers = () => this.liveSubscribers;
    new Gauge({
      name: 'live_subscribers',
      help: 'graphql-ws subscriptions streaming on this instance',
      registers: [this.registry],
      collect() {
        this.set(liveSubscribers());
      },
    });
    const subscriptionsStarted = () => this.subscriptionsStarted;
    new Counter({
      name: 'live_subscriptions_started_total',
      help: 'graphql-ws subscriptions that started streaming on this instance',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(subscriptionsStarted());
      },
    });
    new Gauge({
      name: 'event_bus_subscriptions',
      help: 'Open subscriptions to the event bus on this instance (shared hubs count once)',
      registers: [this.registry],
      collect() {
        this.set(events.openSubscriptions);
      },
    });
    for (const gauge of gauges)
      new Gauge({
        name: gauge.name,
        help: gauge.help,
        registers: [this.registry],
        async collect() {
          this.set(await gauge.read(deps));
        },
      });
    new Gauge({
      name: 'event_backplane_up',
      help: 'Whether this instance is connected to the event backplane (label: postgres or nats)',
      labelNames: ['backplane'],
      registers: [this.registry],
      collect() {
        const { name, state } = events.backplaneStatus();
        this.reset();
        this.set({ backplane: name }, state === 'up' ? 1 : 0);
      },
    });
    // One query for both outbox gauges per scrape (the partial index on unsent rows keeps it small).
    let backlog: Promise<{ unsent: number; ageSeconds: number }> | null = null;
    const readBacklog = () =>
      (backlog ??= outboxBacklog((sql) => deps.orm.em.getConnection().execute(sql)).finally(() => setImmediate(() => (backlog = null))));
    new Gauge({
      name: 'event_outbox_backlog',
      help: 'Events committed to the outbox and not yet published to the backplane (all instances)',
      registers: [this.registry],
      async collect() {
        this.set((await readBacklog()).unsent);
      },
    });
    new Gauge({
      name: 'event_outbox_lag_seconds',
      help: 'Age of the oldest unpublished outbox event (0 when none): how far the backplane is behind the writes',
      registers: [this.registry],
      async collect() {
        this.set((await readBacklog()).ageSeconds);
      },
    });
    new Gauge({
      name: 'event_relay_published',
      help: 'Outbox events this instance relayed to the backplane since it started',
      registers: [this.registry],
      collect() {
        this.set(events.relayedCount());
      },
    });
    events.onDelivered((topic, lagMs) => this.eventLag.observe({ topic }, lagMs / 1000));
  }

  /** Counts one GraphQL operation; anonymous operations are `anonymous`. */
  countOperation(type: string, name: string | null | undefined, outcome: 'ok' | 'error'): void {
    this.graphqlOperations.inc({ operation_name: name || 'anonymous', operation_type: type, outcome });
  }
}

const metricsByApp = new WeakMap<FastifyInstance, Metrics>();

/** The app's metrics, once `registerMetrics` ran. */
export function metricsOf(app: FastifyInstance): Metrics | undefined {
  return metricsByApp.get(app);
}

/** Request metrics for every route, and `GET /metrics` (Prometheus text format; public unless METRICS_TOKEN is set). */
export function registerMetrics(app: FastifyInstance, deps: AppDeps, gauges: readonly AreaGauge[] = []): Metrics {
  const metrics = new Metrics(deps, gauges);
  metricsByApp.set(app, metrics);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    if (request.sqlCount) metrics.sqlStatements.observe({ route }, request.sqlCount.statements);
    done();
  });
  const { metricsToken, limits } = deps.config;
  const expected = metricsToken ? createHash('sha256').update(metricsToken).digest() : null;
  // Public by default (docs/limits.md), in its own small bucket per address: a scrape reads every gauge.
  // With METRICS_TOKEN only that bearer token may read it; refused attempts spend the bucket too.
  const rateLimit = { max: limits.metricsPerMinute, timeWindow: 60_000, keyGenerator: (req: FastifyRequest) => `metrics:ip:${req.ip}` };
  app.get('/metrics', { schema: metricsSchema, config: { public: true, rateLimit } }, async (request, reply) => {
    if (expected) {
      const given = bearerFrom(request.headers.authorization);
      const hash = createHash('sha256')
        .update(typeof given === 'string' ? given : '')
        .digest();
      if (!timingSafeEqual(hash, expected)) throw new AppError('UNAUTHENTICATED', 'GET /metrics needs the bearer token configured in METRICS_TOKEN');
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return metrics;
}

/**
 * graphql-ws hooks: count each operation by name and type at subscribe, and the subscriptions streaming
 * (from the first result to completion, which graphql-ws reports for every end: complete, error, close).
 */
export function graphqlWsMetricsHooks(app: FastifyInstance) {
  const streaming = new WeakMap<object, Set<string>>();
  return {
    counted(document: DocumentNode | null, operationName: string | null | undefined): void {
      const operation = document ? getOperationAST(document, operationName) : null;
      metricsOf(app)?.countOperation(operation?.operation ?? 'unknown', operation?.name?.value ?? operationName, document ? 'ok' : 'error');
    },
    onOperation(ctx: object, id: string, _payload: unknown, _args: unknown, result: unknown): undefined {
      const metrics = metricsOf(app);
      if (!metrics || !result || typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return undefined;
      let ids = streaming.get(ctx);
      if (!ids) streaming.set(ctx, (ids = new Set()));
      ids.add(id);
      metrics.liveSubscribers += 1;
      metrics.subscriptionsStarted += 1;
      return undefined;
    },
    onComplete(ctx: object, id: string): void {
      const metrics = metricsOf(app);
      if (metrics && streaming.get(ctx)?.delete(id)) {
        metrics.liveSubscribers -= 1;
        metrics.subscriptionsEnded += 1;
      }
    },
  };
}

/** Counts GraphQL operations over HTTP by name, type and outcome. */
export function graphqlMetricsPlugin(app: FastifyInstance): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, operationName, response, errors }) {
          const failed = Boolean(errors?.length) || (response.body.kind === 'single' && Boolean(response.body.singleResult.errors?.length));
          metricsOf(app)?.countOperation(operation?.operation ?? 'unknown', operation?.name?.value ?? operationName, failed ? 'error' : 'ok');
        },
      };
    },
  };
}
