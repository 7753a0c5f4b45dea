/**
 * Claiming an agent's work: a person takes over what an agent session made in every area (blueprints,
 * architectures, runs, tool operations) and audits the owner changes in their teams. Each area moves its
 * own rows through `principalClaimed` (claim.hooks.ts); auth keeps the token side.
 */
import { lockLiveAgentSession, requireUser, revokeAllTokens } from '../auth/account.service';
import type { RequestContext } from '../platform/context';
import { assertValid, compileSchema } from '../platform/json-schema';
import { actorOf, recordOwnerChanges } from '../teams/audit.service';
import { principalClaimed, type ClaimedKind } from './claim.hooks';

export interface ClaimResult {
  agentSessionId: string;
  blueprints: number;
  architectures: number;
  runs: number;
  operations: number;
}

const claimBody = compileSchema({
  type: 'object',
  additionalProperties: false,
  required: ['agent_token'],
  properties: { agent_token: { type: 'string', minLength: 1, maxLength: 200 } },
});

/**
 * `POST /api/account/claim`: a person takes over a live agent session's blueprints, architectures, runs
 * and tool operations (they become the person's), and the session is revoked, in one transaction. What
 * the agent did as itself stays its own: versions it authored, stars, reviews, subscriptions, inbox.
 */
export async function claimAgentSession(ctx: RequestContext, body: unknown): Promise<ClaimResult> {
  const viewer = requireUser(ctx);
  const input = assertValid<{ agent_token: string }>(claimBody, body ?? {}, 'body');
  const result = await ctx.em.transactional(async (tx) => {
    const agentId = await lockLiveAgentSession(tx, input.agent_token);
    await recordOwnerChanges(tx, actorOf(ctx), agentId, viewer.principalId, 'claim');
    const moved = new Map<ClaimedKind, number>();
    await principalClaimed.fire(tx, ctx, { from: agentId, to: viewer.principalId, moved });
    const claimed: ClaimResult = {
      agentSessionId: agentId,
      blueprints: moved.get('blueprints') ?? 0,
      architectures: moved.get('architectures') ?? 0,
      runs: moved.get('runs') ?? 0,
      operations: moved.get('operations') ?? 0,
    };
    await revokeAllTokens(tx, agentId);
    return claimed;
  });
  ctx.loaders.clear();
  return result;
}
