import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestContext } from '../platform/context';
import { AppError, errorBody, unauthenticated } from '../platform/errors';
import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import type { McpToolDefinition } from '../platform/mcp-tool';
import { mcpSchemas } from './mcp.schemas';

function toolResult(body: unknown) {
  const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body };
  return { content: [{ type: 'text' as const, text: JSON.stringify(body) }], structuredContent: structured };
}

/** A server bound to one request's context: tools run as the caller, with the caller's loaders. */
function serverFor(ctx: RequestContext, tools: McpToolDefinition[]): McpServer {
  const server = new McpServer({ name: 'blueprint-workshop', version: '0.1.0' });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: tool.readOnly } },
      async (args: Record<string, unknown>) => {
        try {
          return toolResult(await tool.handler(ctx, args as never));
        } catch (err) {
          // The same error body as REST, flagged as a tool error so the agent can read and react.
          if (err instanceof AppError) return { ...toolResult(errorBody(err)), isError: true };
          throw err;
        }
      },
    );
  }
  return server;
}

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless (a server and transport per request, JSON responses),
 * so any instance can answer any call. Every tool needs a bearer token.
 */
export function mcpRoutes(tools: McpToolDefinition[]): RouteModule {
  return (app, deps) => {
    app.post('/mcp', { schema: mcpSchemas.call }, async (request, reply) => {
      const ctx = await requestContext(request, deps);
      if (!ctx.viewer) throw unauthenticated();
      const server = serverFor(ctx, tools);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    });
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        schema: mcpSchemas.notAllowed,
        handler: async (_request, reply) =>
          reply.status(405).header('allow', 'POST').send(errorBody(new AppError('VALIDATION_FAILED', 'This MCP endpoint is stateless: use POST'))),
      });
    }
  };
}
