import type { RequestContext } from './context';
import type { JsonSchema } from './json-schema';

/**
 * One MCP tool: a name, a description, the JSON Schema of its arguments (advertised in `tools/list` and
 * checked before the handler runs), the JSON Schema of its answer where that has a fixed shape, and a
 * handler that calls the same body builder as the REST route, so both answer the same body.
 */
export interface McpToolDefinition<A = Record<string, unknown>> {
  /** `<area>_<verb>`. */
  name: string;
  description: string;
  input: JsonSchema;
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
  return def as unknown as McpToolDefinition;
}
