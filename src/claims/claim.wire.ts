import type { ClaimResult } from './claim.service';

/** The REST (and MCP) body of `POST /api/account/claim` (docs/accounts.md). */
export function toClaimBody(c: ClaimResult) {
  return { agent_session_id: c.agentSessionId, claimed: { blueprints: c.blueprints, architectures: c.architectures, runs: c.runs, operations: c.operations } };
}
