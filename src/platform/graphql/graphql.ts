import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway } from '@apollo/server';
import { createPubSub } from '@graphql-yoga/subscription';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { WebSocketServer } from 'ws';
import type { NonEmptyArray } from 'type-graphql';
import { buildSchema } from 'type-graphql';
import type { RequestContext } from '../context';
import { AppError, isUnavailable, unavailable } from '../errors';
import { limitRules } from './graphql-limits';
import { accessPlugin, operationLimitPlugin, responseBudgetPlugin, unavailablePlugin } from './graphql-plugins';
import { graphqlRequestContext } from '../http/http';
import { responseRefusal } from './response-budget';
import { graphqlMetricsPlugin } from '../http/metrics';
import { graphqlRouteSchemas } from '../http/platform.schemas';
import { CompiledDocuments } from './graphql-compiled';
import { formatGraphQLError, internalErrorPlugin } from './graphql-errors';
import { DOCUMENT_CACHE_MAX_CHARS, documentChecker, mountGraphQLWs } from './graphql-ws-mount';
import type { AppDeps } from '../http/request-context';

/** How long a WebSocket client gets to answer the server's 1001 close frame at shutdown. */
const WS_CLOSE_GRACE_MS = 3000;

export async function buildGraphQLSchema(resolvers: NonEmptyArray<Function>): Promise<GraphQLSchema> {
  // Our subscriptions bring their own `subscribe` (EventBus, fed by the event backplane); type-graphql still
  // insists on a pubSub for `topics`-style subscriptions, of which there are none.
  return buildSchema({ resolvers, validate: false, emitSchemaFile: false, pubSub: createPubSub() });
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
        executor: async (request) => {
          const result = await compiled.execute({
            schema,
            document: request.document,
            variableValues: request.request.variables,
            operationName: request.request.operationName,
            contextValue: request.context,
          });
          // An answer over its plan budget is that one error (responseBudgetPlugin sets its status): every
          // plan field after the refusal failed with it too, and a hundred copies of it would each be
          // logged-checked and formatted by Apollo before being thrown away.
          const refusal = responseRefusal(request.context);
          return refusal ? { errors: [refusal] } : result;
        },
      };
    },
    async stop() {},
  };
}

/** Apollo for queries and mutations over HTTP: our schema, executed compiled, with our plugins and error shape. */
function apolloServer(
  app: FastifyInstance,
  deps: AppDeps,
  schema: GraphQLSchema,
  compiled: CompiledDocuments,
  ws: { wss: WebSocketServer; dispose(): Promise<void> },
): ApolloServer<RequestContext> {
  return new ApolloServer<RequestContext>({
    // Apollo's gateway interface is its hook for another executor: the schema is ours, unchanged, and
    // Apollo still parses, validates, runs the plugins and formats the answer; only `execute` is compiled.
    gateway: compiledGateway(schema, compiled),
    validationRules: limitRules(deps.config.limits),
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
                for (const client of ws.wss.clients) client.terminate();
              }, WS_CLOSE_GRACE_MS);
              try {
                await ws.dispose();
              } finally {
                clearTimeout(stragglers);
              }
            },
          };
        },
      },
    ],
  });
}

/**
 * Mounts GraphQL on `/graphql`: Apollo for queries and mutations over HTTP, graphql-ws for subscriptions
 * on the same port and path, both with the same schema, auth, limits and error shape.
 */
export async function mountGraphQL(app: FastifyInstance, deps: AppDeps, schema: GraphQLSchema): Promise<{ stop(): Promise<void> }> {
  // Every operation, over HTTP and WebSocket, runs compiled where it compiles (graphql-compiled.ts): an
  // event delivered to 2,000 subscribers runs 2,000 calls of one compiled function, and a query skips
  // graphql-js's interpretation of its document. Over HTTP, Apollo's document store keeps the documents.
  const compiled = new CompiledDocuments(schema);
  const ws = mountGraphQLWs(app, deps, schema, compiled, documentChecker(schema, deps.config.limits, compiled));
  const apollo = apolloServer(app, deps, schema, compiled, ws);
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
