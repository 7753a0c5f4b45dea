import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { RequestContext } from './context';
import { AppError, errorBody, validationFailed } from './errors';
import { issuesFrom } from './json-schema';
import { createRequestContext, type AppDeps } from './request-context';
import { sqlCountScope, type SqlCount } from './sql-counter';

declare module 'fastify' {
  interface FastifyRequest {
    /** Built lazily by `requestContext(request)`. */
    bwContext?: Promise<RequestContext>;
    sqlCount?: SqlCount;
  }
}

/** The request's context (EntityManager fork, viewer, loaders), built once per request. */
export function requestContext(request: FastifyRequest, deps: AppDeps): Promise<RequestContext> {
  request.bwContext ??= createRequestContext(deps, request.headers.authorization, request.id);
  return request.bwContext;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Fastify with the API's conventions: request ids, JSON bodies up to the limit, the documented error
 * shape for every failure (never a stack trace), per-token rate limits, and SQL statement counting.
 */
export async function createHttpServer(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.limits.bodyBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // On close: finish in-flight requests, drop idle keep-alive sockets (clients reconnect elsewhere).
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // A path param too long for the router, or a malformed URL escape, is bad input like any other.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void reply.status(400).send(errorBody(validationFailed(error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The URL is malformed')));
    },
  });

  // An empty body on a JSON request is "no body" (e.g. POST .../fork), not a parse error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(validationFailed('The request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const scope: SqlCount = { statements: 0 };
    request.sqlCount = scope;
    sqlCountScope.run(scope, done);
  });
  if (config.exposeSqlCount) {
    app.addHook('onSend', async (request, reply) => {
      if (request.sqlCount) reply.header('x-sql-statements', String(request.sqlCount.statements));
    });
  }

  await app.register(rateLimit, {
    global: true,
    max: config.limits.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => req.headers.authorization ?? req.ip,
    allowList: (req) => req.url === '/healthz',
    errorResponseBuilder: (_req, ctx) => {
      const err = new AppError('RATE_LIMITED', `Too many requests; retry after ${Math.ceil(ctx.ttl / 1000)} s`, { retry_after_seconds: Math.ceil(ctx.ttl / 1000) });
      return Object.assign(err, { statusCode: 429 });
    },
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) return reply.status(error.status).send(errorBody(error));
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
    request.log.error({ err: error, requestId: request.id }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'INTERNAL', message: 'Internal server error', details: { request_id: request.id } } });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)));
  });

  app.get('/healthz', async (_request, reply) => {
    await deps.orm.em.getConnection().execute('select 1');
    return reply.send({ status: 'ok' });
  });

  return app;
}
