/**
 * Claiming an agent's work: a person takes over what an agent session made in every area (blueprints,
 * architectures, runs, tool operations) and audits the owner changes in their teams. It changes the
 * owner of things in areas above teams, so it sits above them; auth keeps the token side.
 */
import { lockLiveAgentSession, requireUser, revokeAllTokens } from '../auth/account.service';
import type { RequestContext } from '../platform/context';
import { assertValid, compileSchema } from '../platform/json-schema';
import { actorOf, recordOwnerChanges } from '../teams/audit.service';

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
    const moved = async (sql: string) => Number(((await tx.execute(sql, [viewer.principalId, agentId], 'run')) as { affectedRows?: number }).affectedRows ?? 0);
    const claimed: ClaimResult = {
      agentSessionId: agentId,
      blueprints: await moved('update blueprint set owner_id = ? where owner_id = ?'),
      architectures: await moved('update architecture set owner_id = ? where owner_id = ?'),
      runs: await moved('update execution_run set principal_id = ? where principal_id = ?'),
      operations: await moved('update tool_operation set principal_id = ? where principal_id = ?'),
    };
    await revokeAllTokens(tx, agentId);
    return claimed;
  });
  ctx.loaders.clear();
  return result;
}
