import type { z } from 'zod';
import type { RequestContext } from './context';

/**
 * One MCP tool: a name, a description, a zod input shape and a handler that calls the same domain
 * service as the REST route and answers the same body.
 */
export interface McpToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: S;
  /** Read-only tools are marked so clients may call them without confirmation. */
  readOnly: boolean;
  handler(ctx: RequestContext, args: z.infer<z.ZodObject<S>>): Promise<unknown>;
}

export function mcpTool<S extends z.ZodRawShape>(def: McpToolDefinition<S>): McpToolDefinition {
  return def as unknown as McpToolDefinition;
}
