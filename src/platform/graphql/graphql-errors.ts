import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { RequestContext } from '../context';
import { AppError, isUnavailable } from '../errors';

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
export function reportInternalErrors(errors: readonly GraphQLError[], requestId: string, log: FastifyInstance['log']): void {
  for (const error of errors) if (isInternal(error)) log.error({ err: unwrapResolverError(error), requestId }, 'unhandled GraphQL error');
}

/** Adds the request id to masked errors, so a caller can quote it and an operator find the log line. */
export function withRequestId(errors: readonly GraphQLFormattedError[], requestId: string): GraphQLFormattedError[] {
  return errors.map((e) => (e.extensions?.code === 'INTERNAL' ? { ...e, extensions: { ...e.extensions, request_id: requestId } } : e));
}

/** Logs unexpected errors of HTTP operations and tags their masked form with the request id. */
export function internalErrorPlugin(log: FastifyInstance['log']): ApolloServerPlugin<RequestContext> {
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
