import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ServerOptions } from 'graphql-ws';
import { GraphQLError, getOperationAST, specifiedRules, subscribe, validate, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { WebSocketServer } from 'ws';
import { bearerFrom, hashToken } from '../sql/tokens';
import type { Limits } from '../config';
import type { RequestContext, Viewer } from '../context';
import { AppError, errorBody, isUnavailable, validationFailed } from '../errors';
import { gateError } from '../http/input-gate';
import { graphqlWsMetricsHooks } from '../http/metrics';
import { OperationContext, type AppDeps } from '../http/request-context';
import { WsCaps, type CappedSocket } from '../live/ws-caps';
import { assertOperationAllowed } from './access-policy';
import { subscribeCompiled } from './compiled-subscription';
import type { CompiledDocuments } from './graphql-compiled';
import { formatGraphQLError, reportInternalErrors, withRequestId } from './graphql-errors';
import { ConnectionCounter, chargeOperation } from './graphql-guards';
import { assertNodeLimit, limitRules, parseLimited } from './graphql-limits';
import { SocketNextWriter, serveGraphQLWs, type WsConnection } from './graphql-ws-server';
import { releaseResponse, resetResponseBudget, responseRefusal } from './response-budget';

/** Distinct subscription documents kept parsed and validated per server, and the longest one kept. */
const DOCUMENT_CACHE_SIZE = 500;
export const DOCUMENT_CACHE_MAX_CHARS = 10_000;

/** A subscription document parsed and validated, or the errors that refuse it. */
export type DocumentChecker = (query: string) => { document: DocumentNode } | { errors: GraphQLError[] };

/**
 * Many sockets send the same subscription text: parse and validate it once (an AST is ~12 KiB, and
 * immutable, so subscribers share it). Only valid, small documents are kept; the oldest goes first. One
 * that is not kept runs on graphql-js (it would be compiled again for every message).
 */
export function documentChecker(schema: GraphQLSchema, limits: Limits, compiled: CompiledDocuments): DocumentChecker {
  const documents = new Map<string, DocumentNode>();
  return (query: string): { document: DocumentNode } | { errors: GraphQLError[] } => {
    const cached = documents.get(query);
    if (cached) return { document: cached };
    let document: DocumentNode;
    try {
      document = parseLimited(query, limits);
    } catch (err) {
      return { errors: [new GraphQLError((err as Error).message, { extensions: { code: 'VALIDATION_FAILED' } })] };
    }
    const errors = validate(schema, document, [...specifiedRules, ...limitRules(limits)]);
    if (errors.length > 0) return { errors: errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'VALIDATION_FAILED' } })) };
    if (query.length <= DOCUMENT_CACHE_MAX_CHARS) {
      if (documents.size >= DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
      documents.set(query, document);
    } else compiled.interpretOnly(document);
    return { document };
  };
}

/** What the server keeps per socket: the caps' bookkeeping, the viewer, and the token's hash while it is counted. */
type SocketExtra = CappedSocket & {
  viewer?: Viewer | null;
  tokenHash?: string | null;
  counted?: boolean;
  /** The socket's last rate-limit refusal and until when it holds (ms since the epoch). */
  limited?: { error: AppError; until: number };
};
type WsOptions = ServerOptions<Record<string, unknown> | undefined, WsConnection & SocketExtra>;

/**
 * Each socket's running operations' contexts: what they hold of their caller's plan bytes in flight is
 * given back when the operation completes or the socket closes (response-budget.ts).
 */
class RunningContexts {
  private readonly bySocket = new WeakMap<object, Map<string, object>>();

  add(socket: object, id: string, context: object): void {
    let contexts = this.bySocket.get(socket);
    if (!contexts) this.bySocket.set(socket, (contexts = new Map()));
    contexts.set(id, context);
  }

  end(socket: object, id: string): void {
    const contexts = this.bySocket.get(socket);
    const context = contexts?.get(id);
    if (!context) return;
    releaseResponse(context);
    contexts!.delete(id);
  }

  endAll(socket: object): void {
    for (const id of [...(this.bySocket.get(socket)?.keys() ?? [])]) this.end(socket, id);
  }
}

/**
 * Who a socket is, and whether it may stay: the token from `connectionParams` (checked by the input gate,
 * then dropped), at most `wsConnectionsPerToken` sockets per token, and the per-IP and per-account caps.
 */
function connectionAdmission(deps: AppDeps, caps: WsCaps, running: RunningContexts): Pick<WsOptions, 'onConnect' | 'onClose'> {
  const limits = deps.config.limits;
  const connections = new ConnectionCounter(limits.wsConnectionsPerToken);
  const perTokenRefusal = { code: 4429, reason: `At most ${limits.wsConnectionsPerToken} connections per token` } as const;
  /** The last step: the socket takes its place among its IP's anonymous sockets or its account's. */
  const admitted = (socket: WsConnection & SocketExtra, accountId: string | null, tokenHash?: string): boolean => {
    const refused = caps.admit(socket, accountId, tokenHash);
    if (!refused) return true;
    socket.socket.close(refused.code, refused.reason); // the 4403 graphql-ws sends after `false` is then ignored
    return false;
  };
  return {
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
      const tokenHash = hashToken(token);
      // A token at its cap, or last seen for an account at its cap, is refused before its lookup: a burst of
      // sockets past a cap costs no database read each. Nothing is admitted without the lookup.
      const early = connections.full(tokenHash) ? perTokenRefusal : caps.knownAccountRefusal(tokenHash);
      if (early) {
        ctx.extra.socket.close(early.code, early.reason);
        return false;
      }
      try {
        ctx.extra.viewer = await deps.resolveViewer(deps.orm.em.fork() as EntityManager, token);
      } catch (err) {
        // A database outage is not a bad token: 1013 "try again later" rather than 4403.
        if (isUnavailable(err)) ctx.extra.socket.close(1013, 'The database is unavailable; retry later');
        return false; // graphql-ws closes with 4403 Forbidden
      }
      ctx.extra.tokenHash = tokenHash;
      if (!connections.tryOpen(tokenHash)) {
        // 4429 (graphql-ws's "too many" code) says why; the 4403 graphql-ws sends after `false` is then ignored.
        ctx.extra.socket.close(perTokenRefusal.code, perTokenRefusal.reason);
        return false;
      }
      ctx.extra.counted = true;
      return admitted(ctx.extra, ctx.extra.viewer?.principalId ?? null, tokenHash);
    },
    onClose: (ctx) => {
      if (ctx.extra.counted && ctx.extra.tokenHash) connections.close(ctx.extra.tokenHash);
      ctx.extra.counted = false;
      caps.release(ctx.extra);
      running.endAll(ctx.extra);
    },
  };
}

/**
 * Whether one operation may start, in the order HTTP checks it: the input gate, the per-connection
 * operation cap, the document (parsed and validated once per text), the rate buckets, the access rule and
 * the node limit, then the caps' place for it; what it runs with when it may.
 */
function operationAdmission(
  deps: AppDeps,
  schema: GraphQLSchema,
  checkedDocument: DocumentChecker,
  caps: WsCaps,
  running: RunningContexts,
  wsMetrics: ReturnType<typeof graphqlWsMetricsHooks>,
): NonNullable<WsOptions['onSubscribe']> {
  const limits = deps.config.limits;
  return async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
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
    // An IP or account already at its operations cap is refused before its document costs anything.
    const full = caps.operationRefusal(ctx.extra);
    if (full) return [full];
    const checked = checkedDocument(payload.query);
    wsMetrics.counted('document' in checked ? checked.document : null, payload.operationName);
    if (!('document' in checked)) return checked.errors;
    const document = checked.document;
    const ip = ctx.extra.ip;
    const operation = getOperationAST(document, payload.operationName ?? undefined);
    // A socket refused by its caller's general rate bucket gets the same refusal for the next second without
    // counting again (the bucket's window is at least that long, and "retry after N s" stays within a second
    // of true): a packet of a hundred subscribes past the limit costs one limiter round and one error, not a
    // hundred. Only a refusal of an operation that is not a mutation is kept: a mutation's may come from the
    // session-creation bucket, which other operations do not draw on.
    const known = ctx.extra.limited;
    if (known && known.until > Date.now()) return [known.error];
    const limited = await chargeOperation(deps.limiter, limits, { viewer: ctx.extra.viewer, ip }, document, operation, true);
    if (limited) {
      if (operation?.operation !== 'mutation') ctx.extra.limited = { error: limited, until: Date.now() + 1000 };
      return [limited];
    }
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
    running.add(ctx.extra, id, contextValue);
    // `rootValue` is set here so that graphql-ws does not add it to the object (kept for the operation's life).
    return { schema, document, variableValues: payload.variables, operationName: payload.operationName, contextValue, rootValue: undefined };
  };
}

/** Every answer in the error shape of HTTP: one over its work budget is that error alone; internal errors are logged and masked. */
function maskedAnswers(log: FastifyBaseLogger): Pick<WsOptions, 'onNext' | 'onError'> {
  return {
    onNext: (_ctx, id, _payload, args, result) => {
      // Each message is one answer with its own work budget; one over it is that error alone.
      const refusal = args.contextValue ? responseRefusal(args.contextValue) : null;
      if (args.contextValue) resetResponseBudget(args.contextValue);
      if (refusal) return { errors: [refusal] };
      if (!('errors' in result) || !result.errors) return result;
      const requestId = (args.contextValue as RequestContext | undefined)?.requestId ?? `ws-${id}`;
      reportInternalErrors(result.errors, requestId, log);
      return {
        ...result,
        errors: withRequestId(
          result.errors.map((e) => formatGraphQLError(e.toJSON(), e)),
          requestId,
        ) as GraphQLError[],
      };
    },
    onError: (_ctx, id, _payload, errors) => {
      reportInternalErrors(errors, `ws-${id}`, log);
      return withRequestId(
        errors.map((e) => formatGraphQLError(e.toJSON(), e)),
        `ws-${id}`,
      );
    },
  };
}

/**
 * graphql-ws on `/graphql` (same port and path as Apollo): the connection's token and caps, each operation's
 * input gate, limits, rate buckets and access rule, and the error shape, as over HTTP.
 */
export function mountGraphQLWs(
  app: FastifyInstance,
  deps: AppDeps,
  schema: GraphQLSchema,
  compiled: CompiledDocuments,
  checkedDocument: DocumentChecker,
): { wss: WebSocketServer; dispose(): Promise<void> } {
  const limits = deps.config.limits;
  const wsMetrics = graphqlWsMetricsHooks(app);
  // Sockets and operations per IP address and per account (ws-caps.ts), beside the per-token cap.
  const caps = new WsCaps(limits);
  const running = new RunningContexts();
  let upgradeRefusalBody: string | undefined;
  const wss = new WebSocketServer({
    server: app.server,
    path: '/graphql',
    // A message over the HTTP body limit closes the socket with 1009 (Message Too Big) before it is parsed.
    maxPayload: limits.bodyBytes,
    // One message of a socket per turn of the event loop, as browsers deliver them: a packet of a hundred
    // subscribes is taken in slices that let every other request in between, not as one long turn.
    allowSynchronousEvents: false,
    // An IP at its socket cap is answered 429 at the upgrade, before the handshake; the count itself is
    // taken when the socket opens (the gate below), in the same turn.
    verifyClient: (info, answer) => {
      const refused = caps.upgradeRefusal(info.req.socket.remoteAddress ?? 'unknown');
      if (!refused) return answer(true);
      upgradeRefusalBody ??= JSON.stringify(errorBody(refused)); // the same every time: made once
      answer(false, refused.status, upgradeRefusalBody, { 'Content-Type': 'application/json; charset=utf-8' });
    },
  });
  const wsServer = serveGraphQLWs<Record<string, unknown> | undefined, SocketExtra>(
    {
      schema,
      execute: (args) => compiled.execute(args),
      subscribe: async (args) => {
        const query = compiled.compiledFor(args.document, args.operationName);
        return query?.subscribe ? subscribeCompiled(query, args) : subscribe(args);
      },
      ...connectionAdmission(deps, caps, running),
      onSubscribe: operationAdmission(deps, schema, checkedDocument, caps, running, wsMetrics),
      onOperation: wsMetrics.onOperation,
      onComplete: (ctx, id) => {
        caps.endOperation(ctx.extra, id);
        running.end(ctx.extra, id);
        wsMetrics.onComplete(ctx, id);
      },
      ...maskedAnswers(app.log),
    },
    wss,
    limits.wsKeepAliveMs,
    { open: (ip) => caps.openSocket(ip), close: (ip) => caps.closeSocket(ip) },
  );
  return { wss, dispose: () => wsServer.dispose() };
}
