import { errorStatus } from './errors';
import type { JsonSchema } from './json-schema';

/**
 * The one vocabulary of the contracts (`<area>/<area>.contract.ts`): JSON Schema per operation, that the
 * REST route (documentation and serialization), the MCP tool (arguments and answer, derived by
 * `mcp-tool.ts`) and the service's validation all use.
 *
 * A route schema both documents the route (OpenAPI at `/openapi.json`) and serializes its answer (Fastify
 * drops properties a response schema does not name), so response objects are closed
 * (`additionalProperties: false`): in tests every answer is validated against its schema, and a field
 * missing from the schema fails loudly instead of silently disappearing.
 */

/** A closed object; every property is required unless named in `optional`. */
export function obj(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/** `schema` or null. */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const num: JsonSchema = { type: 'number' };
export const bool: JsonSchema = { type: 'boolean' };
export const uuid: JsonSchema = { type: 'string', format: 'uuid' };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
/** A JSON object whose keys are the caller's (plan configuration, tool params, reports). */
export const freeObject: JsonSchema = { type: 'object', additionalProperties: true };
export const strings: JsonSchema = arrayOf(str);

/** A REST page `{items, total, limit, offset}` (the pagination contract of every list). */
export function page(item: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return obj({ items: arrayOf(item), total: int, limit: int, offset: int, ...extra });
}

/** An id or slug, as a path parameter or a tool argument takes it (services check what it names). */
export const idString: JsonSchema = { type: 'string', minLength: 1, maxLength: 200 };
/** A tool argument naming a thing by id or slug. */
export const idArg = (description: string): JsonSchema => ({ ...idString, description });

/**
 * A tool's page size. Its bounds are the configured ones (`PAGE_MAX`), filled in when the tool is listed
 * and its arguments checked (`toolInput` in mcp-tool.ts), so MCP and REST accept the same pages.
 */
export const limitArg: JsonSchema = { type: 'integer', description: 'Page size.' };
export const offsetArg: JsonSchema = { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip.' };
/** `limit` and `offset` tool arguments (REST takes them as `pageQuerySchema`). */
export const pageArgs = { limit: limitArg, offset: offsetArg };

/** A tool's arguments object: only the named properties, the `required` ones present. */
export function args(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/**
 * A tool's arguments from an operation's input: the ids naming what it acts on (path parameters over
 * REST, all required), then the input's properties, with its `required`, and its `minProperties` counted
 * past the ids (an update needs its id and at least one field).
 */
export function argsOf(ids: Record<string, JsonSchema>, input?: JsonSchema): JsonSchema {
  const fields = (input?.properties ?? {}) as Record<string, JsonSchema>;
  const schema = args({ ...ids, ...fields }, [...Object.keys(ids), ...((input?.required as string[] | undefined) ?? [])]);
  const min = input?.minProperties as number | undefined;
  return min === undefined ? schema : { ...schema, minProperties: min + Object.keys(ids).length };
}

/** `limit` and `offset` query parameters (checked by `pageFromQuery`: 1..PAGE_MAX, >= 0). */
export const pageQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'string', description: 'Page size: an integer, default 20, at most 100 (PAGE_MAX)' },
    offset: { type: 'string', description: 'Items to skip: an integer, default 0' },
  },
};

/** The error body of every failure: `{"error": {"code", "message", "details"}}`. */
export const errorBodySchema: JsonSchema = obj(
  {
    error: obj(
      {
        code: { type: 'string', enum: Object.keys(errorStatus) },
        message: str,
        details: {
          type: 'object',
          additionalProperties: true,
          description: 'e.g. `issues: [{path, message}]` for VALIDATION_FAILED, `request_id` for INTERNAL',
        },
      },
      ['details'],
    ),
  },
  [],
);

const errorMeaning: Record<number, string> = {
  400: 'VALIDATION_FAILED: malformed JSON, wrong types, unknown values, page size out of range',
  401: 'UNAUTHENTICATED: missing, unknown, expired or revoked bearer token',
  403: 'FORBIDDEN: authenticated but not allowed',
  404: 'NOT_FOUND: no such thing, or a private thing the caller may not see',
  409: 'CONFLICT or STALE_STEP_TOKEN',
  405: 'VALIDATION_FAILED: method not supported here',
  413: 'PAYLOAD_TOO_LARGE: body over 1 MiB',
  429: 'RATE_LIMITED: retry after the `Retry-After` seconds',
  500: 'INTERNAL: unexpected failure (masked; quote `details.request_id`)',
  503: 'UNAVAILABLE: the database is unreachable, or a lock or statement timed out; retry after `Retry-After` seconds',
};

/** Error responses with the shared body, e.g. `errors(403, 409)`. */
export function errors(...statuses: number[]): Record<string, JsonSchema> {
  return Object.fromEntries(statuses.map((s) => [String(s), { ...errorBodySchema, description: errorMeaning[s] ?? 'error' }]));
}

/** Responses every route may give whatever it does: bad input, bad token, rate limit, masked failure. */
export const commonErrorStatuses = [400, 401, 404, 429, 500, 503];

/** A 204 answer (no body). */
export const noContent: JsonSchema = { type: 'null', description: 'No content' };

/**
 * A request body that the service validates (after authentication and access, naming each offending
 * path); the route documents it but does not check it a second time (`requireObject`: the route only
 * checks that it is a JSON object).
 */
export function serviceChecked(schema: JsonSchema, options: { requireObject?: boolean } = {}): JsonSchema {
  return { ...schema, 'x-checked-by-service': options.requireObject ? 'object' : true };
}
