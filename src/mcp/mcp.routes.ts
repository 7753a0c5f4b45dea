import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppError, errorBody, unauthenticated } from '../platform/errors';
import { requestContext } from '../platform/http/http';
import { publicOrigin } from '../platform/http/public-url';
import type { RouteModule } from '../platform/http/routes';
import { mcpServerFor, type McpExtras } from './mcp.server';
import type { McpToolDefinition } from '../platform/mcp-tool';
import { mcpContract } from './mcp.contract';

/** Where an MCP client finds how to get a token (RFC 9728), named in every 401 challenge of `/mcp`. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless (a server and transport per request, JSON responses),
 * so any instance can answer any call. Every tool needs a bearer token: without a valid one the answer is
 * 401 with `WWW-Authenticate: Bearer resource_metadata="..."`, from which a standard MCP client discovers
 * the OAuth authorization server (RFC 9728, MCP authorization).
 */
export function mcpRoutes(tools: McpToolDefinition[], extras: McpExtras = {}): RouteModule {
  return (app, deps) => {
    // Public to the central access hook: this handler answers 401 itself, with the OAuth challenge. Read or
    // write is decided per tool (mcp.server.ts).
    app.post('/mcp', { schema: mcpContract.call, config: { public: true, write: false } }, async (request, reply) => {
      const challenge = (err: AppError) => {
        const metadata = publicOrigin(request, deps.config) + PROTECTED_RESOURCE_METADATA_PATH;
        const error = request.headers.authorization ? 'error="invalid_token", ' : '';
        return reply.status(401).header('www-authenticate', `Bearer ${error}resource_metadata="${metadata}"`).send(errorBody(err));
      };
      let ctx;
      try {
        ctx = await requestContext(request, deps);
      } catch (err) {
        if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return challenge(err);
        throw err;
      }
      if (!ctx.viewer) return challenge(unauthenticated());
      const server = mcpServerFor(ctx, tools, request.log, extras);
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
        schema: mcpContract.notAllowed,
        handler: async (_request, reply) =>
          reply
            .status(405)
            .header('allow', 'POST')
            .send(errorBody(new AppError('VALIDATION_FAILED', 'This MCP endpoint is stateless: use POST'))),
      });
    }
  };
}
