import { args } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { claimContract } from './claim.contract';
import { claimAgentSession } from './claim.service';
import { toClaimBody } from './claim.wire';

/**
 * The one account capability a token may use over MCP. Managing the account's own tokens stays with REST and
 * GraphQL (a token cannot mint tokens); sign-up and sign-in need no tool, since a tool call already has a token.
 */
export const claimMcpTools = [
  mcpTool<{ agent_token: string }>({
    name: 'account_claim',
    description:
      "Take over a live agent session's blueprints, architectures, runs and tool operations (they become yours) and end that session. Needs a person's token. Same body as POST /api/account/claim.",
    input: args({ agent_token: { type: 'string', minLength: 1, maxLength: 200, description: 'The agent session bearer token (bwa_...).' } }, ['agent_token']),
    output: claimContract.claim.response[200],
    readOnly: false,
    handler: async (ctx, a) => toClaimBody(await claimAgentSession(ctx, a)),
  }),
];
