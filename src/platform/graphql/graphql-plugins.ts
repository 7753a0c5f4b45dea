import type { ApolloServerPlugin } from '@apollo/server';
import type { DocumentNode } from 'graphql';
import { assertOperationAllowed } from './access-policy';
import type { RequestContext } from '../context';
import { AppError, isUnavailable, TOKEN_REFUSED, unauthenticated, unavailable, validationFailed } from '../errors';
import { viewerAfterRead } from './deferred-viewer';
import { chargeOperation } from './graphql-guards';
import { assertNodeLimit } from './graphql-limits';
import { releaseResponse, responseRefusal } from './response-budget';
import type { AppDeps } from '../http/request-context';

// The Apollo plugins that admit an HTTP operation: the access rule, the limits and rate buckets, and the
// 503 for a database outage (the WebSocket applies the same rules in graphql.ts's onSubscribe).

/**
 * The access rule (platform/graphql/access-policy.ts) on each root field, before anything resolves, and the bearer
 * token of a context built without its lookup (`pendingViewer`, deferred-viewer.ts): looked up here before
 * any operation that is not marked `@ViewerAfterRead()` (mutations always), and in any case before the
 * answer is sent. A token that is not live turns the whole answer into the 401 a context with the lookup
 * first would have given; an outage during the lookup into its 503.
 */
export function accessPlugin(retryAfterSeconds: number): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, contextValue, schema }) {
          try {
            const pending = contextValue.pendingViewer;
            if (pending) {
              pending.attach(contextValue);
              // A query whose root fields read the viewer after their first statement runs now, that
              // statement carrying the lookup; the access rule asks such a query for a token, and it has one.
              if (pending.open && viewerAfterRead(schema, document, request.operationName)) return;
              if (!(await pending.settled())) throw unauthenticated(TOKEN_REFUSED);
            }
            assertOperationAllowed(contextValue.viewer, schema, document, request.operationName);
          } catch (err) {
            if (err instanceof AppError) Object.assign(err.extensions, { http: { status: err.status } });
            throw err;
          }
        },
        async willSendResponse({ response, contextValue }) {
          const pending = contextValue.pendingViewer;
          if (!pending) return;
          let refusal: { status: number; message: string; code: string; headers?: Array<[string, string]> } | null = null;
          try {
            if (!(await pending.settled())) refusal = { status: 401, message: TOKEN_REFUSED, code: 'UNAUTHENTICATED' };
          } catch (err) {
            if (!isUnavailable(err)) throw err;
            refusal = {
              status: 503,
              message: unavailable(retryAfterSeconds).message,
              code: 'UNAVAILABLE',
              headers: [['retry-after', String(retryAfterSeconds)]],
            };
          }
          if (!refusal) return;
          response.body = { kind: 'single', singleResult: { errors: [{ message: refusal.message, extensions: { code: refusal.code } }] } };
          response.http.status = refusal.status;
          for (const [name, value] of refusal.headers ?? []) response.http.headers.set(name, value);
        },
      };
    },
  };
}

/** A response carrying UNAVAILABLE (the database is down or busy) is a 503 with `Retry-After`. */
export function unavailablePlugin(retryAfterSeconds: number): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors?.some((e) => e.extensions?.code === 'UNAVAILABLE')) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(retryAfterSeconds));
        },
      };
    },
  };
}

/**
 * An answer that went over its work budget (response-budget.ts) is refused as a whole: 400 with that one
 * error (`VALIDATION_FAILED`, `details.max_response_plan_bytes`), never the partial data around it; one
 * over its caller's budget of answers in flight is 429 `RATE_LIMITED` with `Retry-After`. Once the answer
 * is built its plan bytes stop counting as in flight.
 */
export function responseBudgetPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          releaseResponse(contextValue);
          const refusal = responseRefusal(contextValue);
          if (!refusal || response.body.kind !== 'single') return;
          response.body.singleResult = { errors: [{ message: refusal.message, extensions: { code: refusal.code, details: refusal.details } }] };
          response.http.status = refusal.status;
          const retryAfter = refusal.details?.retry_after_seconds;
          if (retryAfter !== undefined) response.http.headers.set('retry-after', String(retryAfter));
        },
      };
    },
  };
}

/** Operation-and-variables keys kept per accepted document. */
const ACCEPTED_PER_DOCUMENT = 100;

/**
 * Once the operation is known: subscriptions belong on the WebSocket (400 over HTTP), the node limit is
 * applied (it needs the variables), and the operation is charged to the caller's rate buckets. Apollo's
 * document store hands back the same parsed document for the same text, so a document already accepted
 * with the same operation and variables is not walked again (the walk cost about a millisecond a request).
 */
export function operationLimitPlugin(deps: AppDeps, keyMaxChars: number): ApolloServerPlugin<RequestContext> {
  // Per server: the limits are this server's.
  const accepted = new WeakMap<DocumentNode, Set<string>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, operation, contextValue }) {
          try {
            if (operation?.operation === 'subscription')
              throw validationFailed('Subscriptions are served over WebSocket (graphql-transport-ws on /graphql), not over HTTP');
            const key = `${request.operationName ?? ''}\u0000${JSON.stringify(request.variables ?? {})}`;
            const seen = accepted.get(document);
            if (!seen?.has(key)) {
              assertNodeLimit(deps.config.limits, schema, document, request.variables, request.operationName);
              if (key.length <= keyMaxChars) {
                const set = seen ?? new Set<string>();
                if (set.size >= ACCEPTED_PER_DOCUMENT) set.clear();
                set.add(key);
                accepted.set(document, set);
              }
            }
            const who = { viewer: null, ip: contextValue.clientIp ?? 'unknown' };
            const limited = await chargeOperation(deps.limiter, deps.config.limits, who, document, operation, false);
            if (limited) throw limited;
          } catch (err) {
            // Apollo answers errors thrown here with HTTP 500 unless told otherwise; this is a bad request.
            if (err instanceof AppError) {
              const retryAfter = err.details?.retry_after_seconds;
              const headers = retryAfter === undefined ? undefined : new Map([['retry-after', String(retryAfter)]]);
              Object.assign(err.extensions, { http: { status: err.status, ...(headers ? { headers } : {}) } });
            }
            throw err;
          }
        },
      };
    },
  };
}
