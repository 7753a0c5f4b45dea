import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { assertAllowed } from '../platform/access-policy';
import type { RequestContext } from '../platform/context';
import { AppError, errorBody, invalidAll, knownError, unauthenticated } from '../platform/errors';
import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import type { McpToolDefinition } from '../platform/mcp-tool';

function toolResult(body: unknown) {
  const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body };
  return { content: [{ type: 'text' as const, text: JSON.stringify(body) }], structuredContent: structured };
}

/** The error body of section 5 as a tool result: `isError`, the body as text and as structured content. */
function errorResult(err: AppError) {
  return { ...toolResult(errorBody(err)), isError: true };
}

/**
 * One `tools/call`, answered in the documented shape whatever goes wrong: an unknown tool is NOT_FOUND,
 * arguments that do not fit the tool's schema are VALIDATION_FAILED with one issue per path, a service
 * error is its own body, and anything unexpected is a masked INTERNAL with the request id (logged, never
 * its message: it could carry SQL).
 */
async function callTool(ctx: RequestContext, tools: Map<string, McpToolDefinition>, name: string, args: unknown, log: FastifyBaseLogger) {
  const tool = tools.get(name);
  if (!tool) return errorResult(new AppError('NOT_FOUND', `No tool named ${JSON.stringify(name)}; tools/list names them all`));
  const parsed = z.object(tool.input).safeParse(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.length > 0 ? i.path.join('.') : 'arguments', message: i.message }));
    return errorResult(invalidAll(issues));
  }
  try {
    // The public rule and the read scope, per tool (the route only requires a token).
    assertAllowed(ctx.viewer, { public: false, write: !tool.readOnly });
    return toolResult(await tool.handler(ctx, parsed.data as never));
  } catch (err) {
    // The same error body as REST, flagged as a tool error so the agent can read and react.
    const known = knownError(err, ctx.config.database.retryAfterSeconds);
    if (known) return errorResult(known);
    log.error({ err, requestId: ctx.requestId, tool: name }, 'unhandled MCP tool error');
    return errorResult(new AppError('INTERNAL', 'Internal server error', { request_id: ctx.requestId }));
  }
}

/** A server bound to one request's context: tools run as the caller, with the caller's loaders. */
function serverFor(ctx: RequestContext, tools: McpToolDefinition[], log: FastifyBaseLogger): McpServer {
  const server = new McpServer({ name: 'blueprint-workshop', version: '0.1.0' });
  for (const tool of tools) {
    // Registered for tools/list (names, schemas, annotations); calls go through `callTool` below.
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: tool.readOnly } }, async () => toolResult(null));
  }
  // The SDK's own tools/call answers unknown tools and bad arguments as plain text; ours uses the error body.
  const byName = new Map(tools.map((t) => [t.name, t]));
  server.server.removeRequestHandler('tools/call');
  server.server.setRequestHandler(CallToolRequestSchema, (request) => callTool(ctx, byName, request.params.name, request.params.arguments, log));
  return server;
}

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless (a server and transport per request, JSON responses),
 * so any instance can answer any call. Every tool needs a bearer token.
 */
export function mcpRoutes(tools: McpToolDefinition[]): RouteModule {
  return (app, deps) => {
    // A token is required (the central hook); read or write is decided per tool, in serverFor.
    app.post('/mcp', { config: { write: false } }, async (request, reply) => {
      const ctx = await requestContext(request, deps);
      if (!ctx.viewer) throw unauthenticated();
      const server = serverFor(ctx, tools, app.log);
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
        config: { public: true },
        handler: async (_request, reply) =>
          reply.status(405).header('allow', 'POST').send(errorBody(new AppError('VALIDATION_FAILED', 'This MCP endpoint is stateless: use POST'))),
      });
    }
  };
}
