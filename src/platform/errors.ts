import { GraphQLError } from 'graphql';

/** The error codes of docs/api.md, with the HTTP status each maps to. */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  STALE_STEP_TOKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/**
 * The one error family of the service. It is a GraphQLError so resolvers can throw it as is; the REST
 * adapter maps it to `{error: {code, message, details}}` with `status`.
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    // No `extensions.http`: a GraphQL response with errors stays 200 (partial data is normal there).
    super(message, { extensions: { code, ...(details ? { details } : {}) } });
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
  }
}

export const validationFailed = (message: string, details?: Record<string, unknown>) => new AppError('VALIDATION_FAILED', message, details);

/** One offending input: a `/`-separated path (e.g. `submission/modules/0/key`) and what is wrong with it. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * The one way to refuse bad input: 400 VALIDATION_FAILED naming the offending path, with
 * `details.issues: [{path, message}]`. The message is "<path> <message>" unless `summary` says more.
 */
export const invalid = (path: string, message: string, summary?: string) => invalidAll([{ path, message }], summary);

/** {@link invalid} for several offending paths at once; the message names the first. */
export const invalidAll = (issues: ValidationIssue[], summary?: string) =>
  validationFailed(summary ?? `${issues[0]!.path} ${issues[0]!.message}`.trim(), { issues });
export const unauthenticated = (message = 'A valid bearer token is required') => new AppError('UNAUTHENTICATED', message);

/** What a bearer token that is unknown, expired or revoked is told, on every surface (with no hint which). */
export const TOKEN_REFUSED = 'The bearer token is unknown, expired or revoked';
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const notFound = (what: string, id?: string) =>
  new AppError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${JSON.stringify(id)} not found`);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('CONFLICT', message, details);
export const staleStepToken = (message = 'The step token is wrong, already used or out of turn') => new AppError('STALE_STEP_TOKEN', message);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

/** Node socket errors that mean "the database cannot be reached right now". */
const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATEs of a transient failure a retry may cure: connection exceptions (class 08), the
 * server shutting down or starting (57P0x), too many connections, a statement or lock timeout (57014,
 * 55P03), a deadlock or serialization failure (40P01, 40001).
 */
const transientStates = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03', '40P01', '40001']);
const unreachableMessages = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Timeout acquiring a connection',
  'connection error and is not queryable',
  'Connection terminated due to connection timeout',
  'the database system is starting up',
  'the database system is shutting down',
];

/**
 * True when `error` (or what it wraps) says the database is unreachable, overloaded or timed out, rather
 * than that the request was wrong: such failures are answered 503 UNAVAILABLE with `Retry-After`.
 */
export function isUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = error as Record<string, unknown> | undefined; e && typeof e === 'object' && !seen.has(e);) {
    seen.add(e);
    if (e instanceof AppError) return e.code === 'UNAVAILABLE';
    const code = typeof e.code === 'string' ? e.code : typeof e.sqlState === 'string' ? e.sqlState : '';
    if (unreachableCodes.has(code) || transientStates.has(code) || code.startsWith('08')) return true;
    if (e.name === 'KnexTimeoutError' || e.name === 'ConnectionException' || e.name === 'LockWaitTimeoutException' || e.name === 'DeadlockException')
      return true;
    if (typeof e.message === 'string' && unreachableMessages.some((m) => (e!.message as string).includes(m))) return true;
    e = (e.cause ?? e.previous ?? e.originalError) as Record<string, unknown> | undefined;
  }
  return false;
}

export const unavailable = (retryAfterSeconds: number) =>
  new AppError('UNAVAILABLE', `The database is unavailable or busy; retry after ${retryAfterSeconds} s`, { retry_after_seconds: retryAfterSeconds });

/** `error` as the AppError it is or stands for (a database outage is UNAVAILABLE), or null when unexpected. */
export function knownError(error: unknown, retryAfterSeconds: number): AppError | null {
  if (error instanceof AppError) return error;
  return isUnavailable(error) ? unavailable(retryAfterSeconds) : null;
}

/** The masked form of an unexpected failure: the caller sees only that it happened and the id to quote. */
export const internalError = (requestId: string) => new AppError('INTERNAL', 'Internal server error', { request_id: requestId });

/**
 * What a caller may see of any error, whichever adapter answers (REST, MCP, OAuth, the idempotent replay):
 * the AppError it is or stands for, or, for anything unexpected, `report` is called with the real error
 * (to log it beside the request id) and the caller gets {@link internalError}. GraphQL masks in its own
 * formatter, since its errors travel inside `errors[]`, but to the same INTERNAL code and request id.
 */
export function publicError(error: unknown, requestId: string, retryAfterSeconds: number, report: (error: unknown) => void): AppError {
  const known = knownError(error, retryAfterSeconds);
  if (known) return known;
  report(error);
  return internalError(requestId);
}
