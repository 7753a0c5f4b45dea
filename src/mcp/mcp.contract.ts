import { errorBodySchema, errors, freeObject, serviceChecked } from '../platform/contract';

const tags = ['mcp'];

export const mcpContract = {
  call: {
    summary: 'MCP over Streamable HTTP (stateless, JSON responses): JSON-RPC 2.0 `initialize`, `tools/list`, `tools/call`',
    tags,
    body: serviceChecked({ ...freeObject, description: 'a JSON-RPC 2.0 request or batch' }),
    // The MCP SDK writes the answer itself; it is documented here, not serialized by Fastify.
    response: {
      200: { ...freeObject, description: 'the JSON-RPC 2.0 response' },
      401: {
        ...errorBodySchema,
        description: 'UNAUTHENTICATED, with `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource"` (OAuth 2.1 discovery)',
      },
    },
  },
  notAllowed: { summary: 'Not supported: this MCP endpoint is stateless (use POST)', tags, response: { ...errors(405) } },
};
