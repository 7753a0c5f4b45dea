import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { bearerFrom, hashToken } from '../sql/tokens';
import type { RequestContext } from '../context';
import type { Config } from '../config';
import { assertAllowed } from '../graphql/access-policy';
import { AppError, errorBody, invalid, knownError, publicError, validationFailed } from '../errors';
import type { HealthProbe } from './health';
import { gateError, jsonDeeperThan } from './input-gate';
import { issuesFrom } from '../json-schema';
import { callerKey, fastifyRateStore } from './rate-limit';
import { registerOpenApi } from './openapi';
import { registerSecurityHeaders } from './security-headers';
import { healthzSchema } from './platform.schemas';
import { createRequestContext, deferredRequestContext, knownCaller, type AppDeps } from './request-context';
import { sqlCountScope, type SqlCount } from '../sql/sql-counter';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Callable without a bearer token (docs/api.md, Authentication). Default: a token is required. */
    public?: boolean;
    /**
     * The whole Content-Security-Policy of the route's answers (e.g. the console's pages); it must say
     * `frame-ancestors 'none'`. Default: only that (security-headers.ts).
     */
    contentSecurityPolicy?: string;
    /**
     * Whether the route changes something (refused to `read` tokens). Default: every method but GET,
     * HEAD and OPTIONS. `/graphql` and `/mcp` say false and apply the rule per root field / per tool.
     */
    write?: boolean;
    /**
     * A GET route whose handler reads nothing of the viewer until after its first `readWithViewerCheck`
     * (the registry's lists), and answers through `afterViewer`: a token this server has seen live is then
     * looked up by that read instead of before the route (docs/reads.md, "The token lookup in the read").
     */
    viewerAfterRead?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered, as `METHOD /path` with its access config (the authorization matrix test reads it). */
    registeredRoutes: Array<{ method: string; url: string; public: boolean; write: boolean }>;
  }
  interface FastifyRequest {
    /** Built lazily by `requestContext(request)`. */
    bwContext?: Promise<RequestContext>;
    /** The bearer token's SHA-256, when the rate-limit hook computed it (GraphQL: the deferred lookup reuses it). */
    bwTokenHash?: string;
    /** Set by the rate-limit hook: a `viewerAfterRead` route with a token seen live; its read carries the lookup. */
    bwCarriesViewer?: boolean;
    sqlCount?: SqlCount;
  }
}

/** The request's context (EntityManager fork, viewer, loaders), built once per request. */
export function requestContext(request: FastifyRequest, deps: AppDeps): Promise<RequestContext> {
  request.bwContext ??= request.bwCarriesViewer
    ? deferredRequestContext(deps, request.headers.authorization, request.id, request.ip, request.bwTokenHash)
    : createRequestContext(deps, request.headers.authorization, request.id, request.ip);
  return request.bwContext;
}

/**
 * A GraphQL request's context: the one an earlier hook built (with its viewer), or one whose token the
 * first read looks up (`deferredRequestContext`).
 */
export async function graphqlRequestContext(request: FastifyRequest, deps: AppDeps): Promise<RequestContext> {
  if (request.bwContext) {
    const ctx = await request.bwContext;
    ctx.clientIp = request.ip;
    return ctx;
  }
  return deferredRequestContext(deps, request.headers.authorization, request.id, request.ip, request.bwTokenHash);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Route schemas are checked as written: a body of the wrong type or with an unknown property is a 400,
 * never silently coerced or stripped (Fastify's default Ajv does both). Path and query strings are text on
 * the wire, so there (only) strings may be coerced to the declared type.
 */
function requestValidators(): { body: Ajv; other: Ajv } {
  const options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false } as const;
  const body = new Ajv({ ...options, coerceTypes: false });
  const other = new Ajv({ ...options, coerceTypes: 'array' });
  addFormats(body);
  addFormats(other);
  return { body, other };
}

/**
 * The rate-limit bucket of a request (`callerKey`): the account of a valid token's person, the address for
 * agents and anonymous callers, so that neither made-up tokens nor minted ones open fresh buckets.
 */
async function rateLimitKey(request: FastifyRequest, deps: AppDeps): Promise<string> {
  const token = bearerFrom(request.headers.authorization);
  if (typeof token !== 'string') return callerKey(null, request.ip);
  // A token found live before names its bucket without a lookup; a GraphQL read, or the read of a
  // `viewerAfterRead` route, then carries the lookup.
  const graphql = request.url.startsWith('/graphql');
  const carrying = graphql || (request.method === 'GET' && request.routeOptions.config.viewerAfterRead === true);
  const known = carrying && deps.viewerLookup ? knownCaller(deps, (request.bwTokenHash = hashToken(token))) : undefined;
  if (known) {
    request.bwCarriesViewer = !graphql;
    return callerKey(known, request.ip);
  }
  const viewer = await requestContext(request, deps).then(
    (ctx) => ctx.viewer,
    () => null,
  );
  return callerKey(viewer, request.ip);
}

/**
 * Refusals before any route runs, from Node's parser: a request head over its 16 KB (a long URL or header)
 * is a 431, anything else unparsable a 400, each in the documented shape (`errors[]` on /graphql).
 */
function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return void socket.destroy();
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, new AppError('PAYLOAD_TOO_LARGE', 'The request line and headers are larger than 16 KB (a URL or a header is too long)')]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, validationFailed('The request did not arrive in time')]
        : [400, validationFailed('The request is not valid HTTP')];
  const graphql = /^[A-Z]+ \/graphql(?:[?/ ]|$)/.test(Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 64).toString('latin1') : '');
  const body = JSON.stringify(graphql ? { errors: [{ message: error.message, extensions: { code: error.code } }] } : errorBody(error));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Fastify with the API's conventions: request ids, JSON bodies up to the limit, the documented error
 * shape for every failure (never a stack trace), per-token rate limits, and SQL statement counting.
 */
export async function createHttpServer(deps: AppDeps, health?: HealthProbe): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: { level: config.logLevel, ...(config.logStream ? { stream: config.logStream } : {}) },
    bodyLimit: config.limits.bodyBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // On close: finish in-flight requests, drop idle keep-alive sockets (clients reconnect elsewhere).
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    // A path param too long for the router, or a malformed URL escape, is bad input like any other.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void reply
        .status(400)
        .send(errorBody(validationFailed(error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The URL is malformed')));
    },
  });
  registerBodies(app, config.limits);
  registerSecurityHeaders(app);
  registerRequestHooks(app, config);
  registerAccessRule(app, deps);
  await registerRateLimit(app, deps);
  registerErrorHandlers(app, config);
  await registerOpenApi(app, { checkResponses: process.env.NODE_ENV === 'test' });
  registerHealthz(app, deps, health);
  return app;
}

/** Request bodies: JSON only, nesting bounded before anything parses it, and schemas the service checks itself skipped. */
function registerBodies(app: FastifyInstance, limits: Config['limits']): void {
  const validators = requestValidators();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    // A body the service validates (after auth, naming each path) is documented here, not checked twice.
    const checkedByService = (schema as Record<string, unknown>)['x-checked-by-service'];
    if (checkedByService === 'object') return validators.body.compile({ type: 'object' });
    if (checkedByService) return () => true;
    return (httpPart === 'body' ? validators.body : validators.other).compile(schema);
  });

  // JSON is the only body type the API reads; Fastify's default text/plain parser would let strings through.
  app.removeAllContentTypeParsers();
  // An empty body on a JSON request is "no body" (e.g. POST .../fork), not a parse error.
  // The input gate's first half: nesting is measured on the raw text by a loop, before JSON.parse or
  // anything recursive sees the body (see input-gate.ts).
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    if (jsonDeeperThan(text, limits.jsonDepthMax))
      return done(
        invalid('body', `nests deeper than ${limits.jsonDepthMax} levels`, `The request body nests deeper than ${limits.jsonDepthMax} levels`),
        undefined,
      );
    try {
      done(null, JSON.parse(text));
    } catch {
      done(validationFailed('The request body is not valid JSON'), undefined);
    }
  });
}

// Its second half, for every route (REST, /graphql, /mcp): no NUL or lone surrogate in any path param,
// query string value or body string (keys included). GraphQL-over-GET variables are JSON in the query string.
function inputProblem(request: FastifyRequest, max: number): AppError | null {
  const problem = gateError(request.params, 'params', max) ?? gateError(request.query, 'query', max) ?? gateError(request.body, 'body', max);
  if (problem) return problem;
  const query = request.query as Record<string, unknown> | undefined;
  for (const name of ['variables', 'extensions']) {
    const raw = query?.[name];
    if (typeof raw !== 'string' || request.routeOptions.url !== '/graphql') continue;
    if (jsonDeeperThan(raw, max)) return validationFailed(`query.${name} nests deeper than ${max} levels`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      continue; // Apollo answers malformed variables itself, with 400
    }
    const nested = gateError(parsed, `query.${name}`, max);
    if (nested) return nested;
  }
  return null;
}

/** The request id header, the SQL statement counter (tests and benches), and keep-alive sockets closed while closing. */
function registerRequestHooks(app: FastifyInstance, config: Config): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Counting needs an AsyncLocalStorage scope, and a scope turns on promise hooks for the whole process
    // (measured: about a tenth of a nested GraphQL read), so only tests and benchmarks pay for it.
    if (!config.exposeSqlCount) return done();
    const scope: SqlCount = { statements: 0 };
    request.sqlCount = scope;
    sqlCountScope.run(scope, done);
  });
  // Once closing, each response that finishes an in-flight request also closes its keep-alive socket;
  // otherwise the drain would wait for the client to hang up (or for the 10 s force-close fallback).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  if (config.exposeSqlCount) {
    app.addHook('onSend', async (request, reply) => {
      if (request.sqlCount) reply.header('x-sql-statements', String(request.sqlCount.statements));
    });
  }
}

/** The route registry (the authorization matrix reads it) and the access rule, applied once for every route. */
function registerAccessRule(app: FastifyInstance, deps: AppDeps): void {
  const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
  const isWrite = (method: string, write: boolean | undefined) => write ?? !readMethods.has(method);
  app.decorate('registeredRoutes', []);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { public?: boolean; write?: boolean };
    for (const method of [route.method].flat())
      app.registeredRoutes.push({ method, url: route.url, public: config.public === true, write: isWrite(method, config.write) });
  });
  // At preValidation, the input gate's second half (above), then the access rule, once for every route:
  // anonymous callers reach only public routes, read tokens only reads. After the rate limit (onRequest), so
  // refused callers still spend their budget, and after body parsing (an oversize body is 413 whoever sends
  // it), but before any body schema is checked. A callback hook: no promise on the way for public routes.
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = inputProblem(request, deps.config.limits.jsonDepthMax);
    if (problem) return done(problem);
    const config = request.routeOptions.config;
    // a token given to a public route is still checked (401 if bad) when the handler builds its context
    if (request.is404 || config.public) return done();
    // A GET whose read carries the lookup: a token is there, and `afterViewer` answers 401 unless it is live.
    if (request.bwCarriesViewer) return done();
    requestContext(request, deps).then(
      (ctx) => {
        try {
          assertAllowed(ctx.viewer, { public: false, write: isWrite(request.method, config.write) });
        } catch (err) {
          return done(err as AppError);
        }
        done();
      },
      (err: Error) => done(err),
    );
  });
}

/** The per-minute buckets of every HTTP request, shared with graphql-ws. */
async function registerRateLimit(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { config } = deps;
  await app.register(rateLimit, {
    global: true,
    max: config.limits.rateLimitPerMinute,
    timeWindow: 60_000,
    // The buckets graphql-ws counts in too (in Redis when REDIS_URL is set; in memory while Redis is down).
    store: fastifyRateStore(deps.limiter),
    skipOnError: true,
    allowList: (req) => req.url === '/healthz',
    keyGenerator: (req) => (req.url === '/healthz' ? 'healthz' : rateLimitKey(req, deps)),
    errorResponseBuilder: (_req, ctx) => {
      const err = new AppError('RATE_LIMITED', `Too many requests; retry after ${Math.ceil(ctx.ttl / 1000)} s`, {
        retry_after_seconds: Math.ceil(ctx.ttl / 1000),
      });
      return Object.assign(err, { statusCode: 429 });
    },
  });
}

/** Every failure in the documented error shape (GraphQL's on /graphql); unknown paths counted and 404. */
function registerErrorHandlers(app: FastifyInstance, config: Config): void {
  app.setErrorHandler((thrown: FastifyError | AppError, request, reply) => {
    // The body parser's refusals are section 5 errors like any other (so /graphql answers them as `errors[]`).
    const error: FastifyError | AppError =
      !(thrown instanceof AppError) && thrown.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${config.limits.bodyBytes} bytes`)
        : thrown;
    // A GraphQL client reads `errors[]`, also when the input gate refuses the request before Apollo sees it.
    if (error instanceof AppError && request.routeOptions.url === '/graphql')
      return reply
        .status(error.status)
        .send({ errors: [{ message: error.message, extensions: { code: error.code, ...(error.details ? { details: error.details } : {}) } }] });
    if (error instanceof AppError) {
      const retryAfter = error.details?.retry_after_seconds;
      if (error.code === 'RATE_LIMITED' && typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply.status(error.status).send(errorBody(error));
    }
    const outage = knownError(error, config.database.retryAfterSeconds);
    if (outage) return reply.status(outage.status).header('retry-after', String(config.database.retryAfterSeconds)).send(errorBody(outage));
    if (error.validation) {
      const issues = issuesFrom(error.validation as never, error.validationContext ?? 'request');
      const first = issues[0];
      return reply.status(400).send(errorBody(validationFailed(first ? `${first.path} ${first.message}` : 'The request is invalid', { issues })));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.status(413).send(errorBody(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${config.limits.bodyBytes} bytes`)));
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply.status(400).send(errorBody(validationFailed('The request body must be JSON (Content-Type: application/json)')));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return reply.status(400).send(errorBody(validationFailed(error.message)));
    const masked = publicError(error, request.id, config.database.retryAfterSeconds, (err) =>
      request.log.error({ err, requestId: request.id }, 'unhandled error'),
    );
    return reply.status(masked.status).send(errorBody(masked));
  });

  // Unknown paths count against the caller's budget too (scanners are callers).
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (request, reply) => {
    reply.status(404).send(errorBody(new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)));
  });
}

/** `/healthz`: the database (on its own connection), the event backplane and Redis. */
function registerHealthz(app: FastifyInstance, deps: AppDeps, health?: HealthProbe): void {
  const { config } = deps;
  // Its own connection (never the request pool) and a short timeout: see HealthProbe.
  app.get('/healthz', { config: { public: true }, schema: healthzSchema }, async (_request, reply) => {
    if (
      health
        ? await health.check()
        : await deps.orm.em
            .getConnection()
            .execute('select 1')
            .then(
              () => true,
              () => false,
            )
    ) {
      const limiter = deps.limiter.status();
      return reply.send({ status: 'ok', backplane: deps.events.backplaneStatus(), ...(limiter.name === 'redis' ? { redis: { state: limiter.state } } : {}) });
    }
    const retry = config.database.retryAfterSeconds;
    return reply
      .status(503)
      .header('retry-after', String(retry))
      .send({ status: 'unavailable', ...errorBody(new AppError('UNAVAILABLE', 'The database does not answer', { retry_after_seconds: retry })) });
  });
}
