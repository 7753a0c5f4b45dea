import type { Limits } from './config';
import type { RequestContext } from './context';
import { limitArg } from './contract';
import type { JsonSchema } from './json-schema';

/**
 * One MCP tool: a name, a description, the JSON Schema of its arguments (advertised in `tools/list` and
 * checked before the handler runs), the JSON Schema of its answer where that has a fixed shape, and a
 * handler that calls the same body builder as the REST route, so both answer the same body. Both schemas
 * are written in the contract vocabulary (contract.ts), mostly taken from the area's contract; what MCP
 * needs differently is derived here (`toolOutput`, `toolInput`).
 */
export interface McpToolDefinition<A = Record<string, unknown>> {
  /** `<area>_<verb>`. */
  name: string;
  description: string;
  /**
   * The arguments' schema, or a function of the limits the server was started with when a bound in it is
   * configurable (a message or title size): `tools/list` then shows the bounds the service will apply.
   */
  input: JsonSchema | ((limits: Limits) => JsonSchema);
  output?: JsonSchema;
  /** True when the tool changes nothing: clients may call it without asking the user. */
  readOnly: boolean;
  /** True when the tool removes something (a node, an edge, a member, a star...). */
  destructive?: boolean;
  /** True when calling it twice with the same arguments has no further effect. */
  idempotent?: boolean;
  handler(ctx: RequestContext, args: A): Promise<unknown>;
}

/** Declares a tool with typed arguments (the schema check runs before the handler sees them). */
export function mcpTool<A = Record<string, unknown>>(def: McpToolDefinition<A>): McpToolDefinition {
  return { ...def, ...(def.output ? { output: toolOutput(def.output) } : {}) } as unknown as McpToolDefinition;
}

/**
 * A tool's answer schema from a contract's response schema: the same fields, with objects left open, so
 * that adding a field to a body does not break a client that validates answers against `tools/list`
 * (REST closes them because Fastify serializes by the schema; MCP answers are not serialized by it).
 */
export function toolOutput(schema: JsonSchema): JsonSchema {
  const open = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(open);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === 'additionalProperties' && v === false) continue;
      out[key] = key === 'enum' || key === 'required' ? v : open(v);
    }
    return out;
  };
  return open(schema) as JsonSchema;
}

const inputsByLimits = new WeakMap<JsonSchema, { pageMax: number; pageDefault: number; schema: JsonSchema }>();
const inputsOfConfig = new WeakMap<(limits: Limits) => JsonSchema, WeakMap<Limits, JsonSchema>>();

/** The schema a tool's `input` gives for these limits: one object per function and limits (Ajv compiles it once). */
function inputFor(input: McpToolDefinition['input'], limits: Limits): JsonSchema {
  if (typeof input !== 'function') return input;
  let byLimits = inputsOfConfig.get(input);
  if (!byLimits) inputsOfConfig.set(input, (byLimits = new WeakMap()));
  let schema = byLimits.get(limits);
  if (!schema) byLimits.set(limits, (schema = input(limits)));
  return schema;
}

/**
 * A tool's argument schema as listed and checked, for the limits the server was started with: the bounds
 * an `input` function derives from them, and a page size (`pageArgs.limit`) with the configured bounds
 * and default, the ones REST's `pageFromQuery` applies.
 */
export function toolInput(tool: McpToolDefinition['input'], limits: Limits): JsonSchema {
  const input = inputFor(tool, limits);
  const props = input.properties as Record<string, JsonSchema> | undefined;
  if (props?.limit !== limitArg) return input;
  const known = inputsByLimits.get(input);
  if (known && known.pageMax === limits.pageMax && known.pageDefault === limits.pageDefault) return known.schema;
  const limit = { type: 'integer', minimum: 1, maximum: limits.pageMax, default: limits.pageDefault, description: `Page size, 1-${limits.pageMax}.` };
  const schema = { ...input, properties: { ...props, limit } };
  inputsByLimits.set(input, { pageMax: limits.pageMax, pageDefault: limits.pageDefault, schema });
  return schema;
}
