import { defaultLimits } from '../platform/config';
import type { JsonSchema } from '../platform/json-schema';

/**
 * JSON Schema pieces for tool arguments and answers, with the bounds the REST adapter applies (page
 * sizes 1-100, ids of at most 200 characters), so a client sees the real limits in `tools/list`.
 */

/** An id or slug, as REST path parameters take it. */
export const idArg = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 200, description });

export const limitArg: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: defaultLimits.pageMax,
  default: defaultLimits.pageDefault,
  description: `Page size, 1-${defaultLimits.pageMax}.`,
};
export const offsetArg: JsonSchema = { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip.' };
export const pageArgs = { limit: limitArg, offset: offsetArg };

/** The arguments object: only the named properties, `required` ones present. */
export function args(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/** An answer object; extra properties are allowed so that adding a field to a body is not a breaking change. */
export function shape(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: 'object', properties, required };
}

export const str: JsonSchema = { type: 'string' };
export const strOrNull: JsonSchema = { type: ['string', 'null'] };
export const int: JsonSchema = { type: 'integer' };
export const num: JsonSchema = { type: 'number' };
export const numOrNull: JsonSchema = { type: ['number', 'null'] };
export const bool: JsonSchema = { type: 'boolean' };
export const anyObject: JsonSchema = { type: 'object' };
export const strings: JsonSchema = { type: 'array', items: str };
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/** A REST list body `{items, total, limit, offset}` (plus `extra` fields). */
export const pageOf = (item: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema =>
  shape({ items: arrayOf(item), total: int, limit: int, offset: int, ...extra });
