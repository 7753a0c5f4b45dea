import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createPubSub } from '@graphql-yoga/subscription';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { unwrapResolverError } from '@apollo/server/errors';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import {
  GraphQLError,
  getOperationAST,
  specifiedRules,
  subscribe,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { WebSocketServer } from 'ws';
import type { NonEmptyArray } from 'type-graphql';
import { buildSchema } from 'type-graphql';
import { bearerFrom, hashToken } from '../db/tokens';
import type { RequestContext, Viewer } from '../context';
import { assertOperationAllowed } from './access-policy';
import { AppError, isUnavailable, unavailable, validationFailed } from '../errors';
import { ConnectionCounter, chargeOperation } from './graphql-guards';
import { assertNodeLimit, limitRules, parseLimited } from './graphql-limits';
import { gateError } from '../http/input-gate';
import { accessPlugin, operationLimitPlugin, responseBudgetPlugin, unavailablePlugin } from './graphql-plugins';
import { resetResponseBudget, responseRefusal } from './response-budget';
import { graphqlRequestContext } from '../http/http';
import { graphqlMetricsPlugin, graphqlWsMetricsHooks } from '../http/metrics';
import { graphqlRouteSchemas } from '../http/platform.schemas';
import { SocketNextWriter, serveGraphQLWs } from './graphql-ws-server';
import { WsCaps, type CappedSocket } from '../live/ws-caps';
import { subscribeCompiled } from './compiled-subscription';
import { CompiledDocuments } from './graphql-compiled';
import { OperationContext, type AppDeps } from '../http/request-context';

/** How long a WebSocket client gets to answer the server's 1001 close frame at shutdown. */
const WS_CLOSE_GRACE_MS = 3000;

/** Distinct subscription documents kept parsed and validated per server, and the longest one kept. */
const DOCUMENT_CACHE_SIZE = 500;
const DOCUMENT_CACHE_MAX_CHARS = 10_000;

/** Codes graphql-js and Apollo use for a bad request; all are VALIDATION_FAILED to our callers. */
const badRequestCodes = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_QUERY_NOT_FOUND',
  'VALIDATION_FAILED',
]);

export async function buildGraphQLSchema(resolvers: NonEmptyArray<Function>): Promise<GraphQLSchema> {
  // Our subscriptions bring their own `subscribe` (EventBus, fed by the event backplane); type-graphql still
  // insists on a pubSub for `topics`-style subscriptions, of which there are none.
  return buildSchema({ resolvers, validate: false, emitSchemaFile: false, pubSub: createPubSub() });
}

/**
 * One error shape for GraphQL: our codes in `extensions.code`, bad requests as VALIDATION_FAILED, anything
 * unexpected masked as INTERNAL (logged, with the request id, by `reportInternalErrors`).
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  let original = unwrapResolverError(error);
  // graphql-ws wraps an error thrown by a subscription's event stream without a path; unwrap it too.
  if (original instanceof GraphQLError && original.originalError instanceof AppError) original = original.originalError;
  if (original instanceof AppError)
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: original.code, ...(original.details ? { details: original.details } : {}) },
    };
  const code = String(formatted.extensions?.code ?? '');
  if (code === 'UNAVAILABLE' || isUnavailable(original))
    return {
      message: 'The database is unavailable or busy; retry later',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'UNAVAILABLE' },
    };
  if (code === 'UNAUTHENTICATED') return { message: formatted.message, extensions: { code } };
  if (badRequestCodes.has(code) || (original instanceof GraphQLError && !original.originalError && code === ''))
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code: 'VALIDATION_FAILED' } };
  return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL' } };
}

function isInternal(error: GraphQLError): boolean {
  return formatGraphQLError(error.toJSON(), error).extensions?.code === 'INTERNAL';
}

/** Logs each unexpected error with the request id; the caller sees only INTERNAL and that id. */
function reportInternalErrors(errors: readonly GraphQLError[], requestId: string, log: FastifyInstance['log']): void {
  for (const error of errors) if (isInternal(error)) log.error({ err: unwrapResolverError(error), requestId }, 'unhandled GraphQL error');
}

/** Adds the request id to masked errors, so a caller can quote it and an operator find the log line. */
function withRequestId(errors: readonly GraphQLFormattedError[], requestId: string): GraphQLFormattedError[] {
  return errors.map((e) => (e.extensions?.code === 'INTERNAL' ? { ...e, extensions: { ...e.extensions, request_id: requestId } } : e));
}

/** Logs unexpected errors of HTTP operations and tags their masked form with the request id. */
function internalErrorPlugin(log: FastifyInstance['log']): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          reportInternalErrors(errors, contextValue.requestId, log);
        },
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind === 'single' && response.body.singleResult.errors)
            response.body.singleResult.errors = withRequestId(response.body.singleResult.errors, contextValue.requestId);
        },
      };
    },
  };
}

/** An Apollo gateway that serves `schema` as it is and executes through `compiled`. */
function compiledGateway(schema: GraphQLSchema, compiled: CompiledDocuments): ApolloServerOptionsWithGateway<RequestContext>['gateway'] {
  let announce: ((schemaContext: { apiSchema: GraphQLSchema; coreSupergraphSdl: string }) => void) | undefined;
  return {
    onSchemaLoadOrUpdate(callback) {
      announce = callback;
      return () => {
        announce = undefined;
      };
    },
    async load() {
      announce?.({ apiSchema: schema, coreSupergraphSdl: '' });
      return {
        executor: async (request) =>
          compiled.execute({
            schema,
            document: request.document,
            variableValues: request.request.variables,
            operationName: request.request.operationName,
            contextValue: request.context,
          }),
      };
    },
    async stop() {},
  };
}

/**
 * Mounts GraphQL on `/graphql`: Apollo for queries and mutations over HTTP, graphql-ws for subscriptions
 * on the same port and path, both with the same schema, auth, limits and error shape.
 */
export async function mountGraphQL(app: FastifyInstance, deps: AppDeps, schema: GraphQLSchema): Promise<{ stop(): Promise<void> }> {
  const rules = limitRules(deps.config.limits);

  // Every operation, over HTTP and WebSocket, runs compiled where it compiles (graphql-compiled.ts): an
  // event delivered to 2,000 subscribers runs 2,000 calls of one compiled function, and a query skips
  // graphql-js's interpretation of its document. Over HTTP, Apollo's document store keeps the documents.
  const compiled = new CompiledDocuments(schema);

  // Many sockets send the same subscription text: parse and validate it once (an AST is ~12 KiB, and
  // immutable, so subscribers share it). Only valid, small documents are kept; the oldest goes first. One
  // that is not kept runs on graphql-js (it would be compiled again for every message).
  const documents = new Map<string, DocumentNode>();
  const checkedDocument = (query: string): { document: DocumentNode } | { errors: GraphQLError[] } => {
    const cached = documents.get(query);
    if (cached) return { document: cached };
    let document: DocumentNode;
    try {
      document = parseLimited(query, deps.config.limits);
    } catch (err) {
      return { errors: [new GraphQLError((err as Error).message, { extensions: { code: 'VALIDATION_FAILED' } })] };
    }
    const errors = validate(schema, document, [...specifiedRules, ...rules]);
    if (errors.length > 0) return { errors: errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'VALIDATION_FAILED' } })) };
    if (query.length <= DOCUMENT_CACHE_MAX_CHARS) {
      if (documents.size >= DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
      documents.set(query, document);
    } else compiled.interpretOnly(document);
    return { document };
  };

  const wsMetrics = graphqlWsMetricsHooks(app);
  /** onConnect's last step: the socket takes its place among its IP's anonymous sockets or its account's. */
  const admitted = (socket: CappedSocket & { socket: { close(code: number, reason: string): void } }, accountId: string | null): boolean => {
    const refused = caps.admit(socket, accountId);
    if (!refused) return true;
    socket.socket.close(refused.code, refused.reason); // the 4403 graphql-ws sends after `false` is then ignored
    return false;
  };

  const limits = deps.config.limits;
  const connections = new ConnectionCounter(limits.wsConnectionsPerToken);
  // Sockets and operations per IP address and per account (ws-caps.ts), beside the per-token cap above.
  const caps = new WsCaps(limits);
  // A message over the HTTP body limit closes the socket with 1009 (Message Too Big) before it is parsed.
  const wss = new WebSocketServer({ server: app.server, path: '/graphql', maxPayload: limits.bodyBytes });
  const wsServer = serveGraphQLWs<Record<string, unknown> | undefined, CappedSocket & { viewer?: Viewer | null; tokenHash?: string | null; counted?: boolean }>(
    {
      schema,
      execute: (args) => compiled.execute(args),
      subscribe: async (args) => {
        const query = compiled.compiledFor(args.document, args.operationName);
        return query?.subscribe ? subscribeCompiled(query, args) : subscribe(args);
      },
      onConnect: async (ctx) => {
        if (gateError(ctx.connectionParams ?? null, 'connectionParams', limits.jsonDepthMax)) return false;
        const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        if (raw !== undefined && raw !== null && typeof raw !== 'string') return false; // a token is a string; anything else is a bad credential, not anonymity
        const token = bearerFrom(typeof raw === 'string' ? (/^bearer\s/i.test(raw) ? raw : `Bearer ${raw}`) : undefined);
        // Nothing reads the parameters again: the connection does not keep the token text for its whole life.
        (ctx as { connectionParams?: unknown }).connectionParams = undefined;
        if (token === null) return false;
        if (token === undefined) {
          ctx.extra.viewer = null;
          return admitted(ctx.extra, null);
        }
        try {
          ctx.extra.viewer = await deps.resolveViewer(deps.orm.em.fork() as EntityManager, token);
        } catch (err) {
          // A database outage is not a bad token: 1013 "try again later" rather than 4403.
          if (isUnavailable(err)) ctx.extra.socket.close(1013, 'The database is unavailable; retry later');
          return false; // graphql-ws closes with 4403 Forbidden
        }
        ctx.extra.tokenHash = hashToken(token);
        if (!connections.tryOpen(ctx.extra.tokenHash)) {
          // 4429 (graphql-ws's "too many" code) says why; the 4403 graphql-ws sends after `false` is then ignored.
          ctx.extra.socket.close(4429, `At most ${limits.wsConnectionsPerToken} connections per token`);
          return false;
        }
        ctx.extra.counted = true;
        return admitted(ctx.extra, ctx.extra.viewer?.principalId ?? null);
      },
      onClose: (ctx) => {
        if (ctx.extra.counted && ctx.extra.tokenHash) connections.close(ctx.extra.tokenHash);
        ctx.extra.counted = false;
        caps.release(ctx.extra);
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        // The input gate, for everything the message carries, before anything else reads it.
        const refused = gateError(id, 'id', limits.jsonDepthMax) ?? gateError(payload, 'payload', limits.jsonDepthMax);
        if (refused) return [refused];
        // graphql-ws marks the new operation before calling us, so it is counted here.
        if (Object.keys(ctx.subscriptions).length > limits.wsSubscriptionsMax)
          return [
            validationFailed(`At most ${limits.wsSubscriptionsMax} operations may run at once on one connection; complete one first`, {
              max_subscriptions: limits.wsSubscriptionsMax,
            }),
          ];
        const checked = checkedDocument(payload.query);
        wsMetrics.counted('document' in checked ? checked.document : null, payload.operationName);
        if (!('document' in checked)) return checked.errors;
        const document = checked.document;
        const ip = ctx.extra.ip;
        const operation = getOperationAST(document, payload.operationName ?? undefined);
        const limited = await chargeOperation(deps.limiter, limits, { viewer: ctx.extra.viewer, ip }, document, operation, true);
        if (limited) return [limited];
        try {
          assertOperationAllowed(ctx.extra.viewer ?? null, schema, document, payload.operationName);
          assertNodeLimit(limits, schema, document, payload.variables, payload.operationName);
        } catch (err) {
          return [err as AppError];
        }
        // Last of the checks: from here on the operation holds its place until onComplete or the socket closes.
        const capped = caps.startOperation(ctx.extra, id);
        if (capped) return [capped];
        const contextValue = new OperationContext(deps, ctx.extra.viewer ?? null, `ws-${id}`, ctx.extra.tokenHash ?? null, ip);
        if (operation?.operation === 'subscription') contextValue.liveWriter = new SocketNextWriter(ctx.extra.socket, id);
        // `rootValue` is set here so that graphql-ws does not add it to the object (kept for the operation's life).
        return { schema, document, variableValues: payload.variables, operationName: payload.operationName, contextValue, rootValue: undefined };
      },
      onOperation: wsMetrics.onOperation,
      onComplete: (ctx, id) => {
        caps.endOperation(ctx.extra, id);
        wsMetrics.onComplete(ctx, id);
      },
      onNext: (_ctx, id, _payload, args, result) => {
        // Each message is one answer with its own work budget; one over it is that error alone.
        const refusal = args.contextValue ? responseRefusal(args.contextValue) : null;
        if (args.contextValue) resetResponseBudget(args.contextValue);
        if (refusal) return { errors: [refusal] };
        if (!('errors' in result) || !result.errors) return result;
        const requestId = (args.contextValue as RequestContext | undefined)?.requestId ?? `ws-${id}`;
        reportInternalErrors(result.errors, requestId, app.log);
        return {
          ...result,
          errors: withRequestId(
            result.errors.map((e) => formatGraphQLError(e.toJSON(), e)),
            requestId,
          ) as GraphQLError[],
        };
      },
      onError: (_ctx, id, _payload, errors) => {
        reportInternalErrors(errors, `ws-${id}`, app.log);
        return withRequestId(
          errors.map((e) => formatGraphQLError(e.toJSON(), e)),
          `ws-${id}`,
        );
      },
    },
    wss,
    limits.wsKeepAliveMs,
    { open: (ip) => caps.openSocket(ip), close: (ip) => caps.closeSocket(ip) },
  );

  const apollo = new ApolloServer<RequestContext>({
    // Apollo's gateway interface is its hook for another executor: the schema is ours, unchanged, and
    // Apollo still parses, validates, runs the plugins and formats the answer; only `execute` is compiled.
    gateway: compiledGateway(schema, compiled),
    validationRules: rules,
    // The parser itself stops at the token limit: a huge document costs no more than a small one to refuse.
    parseOptions: { maxTokens: deps.config.limits.queryTokensMax },
    formatError: formatGraphQLError,
    // Apollo pretty-prints every answer by default (two-space indentation): more bytes and more time for
    // nothing a client reads.
    stringifyResult: (value) => JSON.stringify(value),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns SIGTERM/SIGINT and stops Apollo as one step of an ordered shutdown.
    stopOnTerminationSignals: false,
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginCacheControlDisabled(),
      // Browsers get the local GraphiQL (graphiql.ts), not Apollo's CDN-loaded landing page.
      ApolloServerPluginLandingPageDisabled(),
      graphqlMetricsPlugin(app),
      accessPlugin(deps.config.database.retryAfterSeconds),
      operationLimitPlugin(deps, DOCUMENT_CACHE_MAX_CHARS),
      responseBudgetPlugin(),
      internalErrorPlugin(app.log),
      unavailablePlugin(deps.config.database.retryAfterSeconds),
      {
        async serverWillStart() {
          return {
            async drainServer() {
              // dispose() sends 1001 and waits for each client's close frame; one that never answers would
              // hold shutdown for ws's 30 s close timeout, so stragglers are cut after a grace period.
              const stragglers = setTimeout(() => {
                for (const client of wss.clients) client.terminate();
              }, WS_CLOSE_GRACE_MS);
              try {
                await wsServer.dispose();
              } finally {
                clearTimeout(stragglers);
              }
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  const handler = fastifyApolloHandler(apollo, {
    context: async (request) => {
      try {
        return await graphqlRequestContext(request, deps);
      } catch (err) {
        if (err instanceof AppError) throw new GraphQLError(err.message, { extensions: { code: err.code, http: { status: err.status } } });
        if (isUnavailable(err)) {
          const retry = deps.config.database.retryAfterSeconds;
          throw new GraphQLError(unavailable(retry).message, {
            extensions: { code: 'UNAVAILABLE', http: { status: 503, headers: new HeaderMap([['retry-after', String(retry)]]) } },
          });
        }
        throw err;
      }
    },
  });
  // Public at the HTTP level: the access rule is applied per root field (accessPlugin), as over WebSocket.
  app.route({ url: '/graphql', method: ['GET', 'OPTIONS'], config: { public: true, write: false }, schema: graphqlRouteSchemas.get, handler });
  app.route({ url: '/graphql', method: 'POST', config: { public: true, write: false }, schema: graphqlRouteSchemas.post, handler });
  // Stopping Apollo drains everything: the drain plugin closes Fastify (in-flight requests finish,
  // stragglers are cut after 10 s) and the hook above disposes graphql-ws (sockets get 1001 Going away).
  return { stop: () => apollo.stop() };
}
