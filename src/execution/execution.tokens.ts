import { createHmac } from 'node:crypto';
import { hashToken, newToken, tokenPrefix } from '../platform/sql/tokens';

/** Domain separation: a chained token is never equal to any stored hash or other derivation. */
const CHAIN_LABEL = 'blueprint-workshop/execution/next-stage-token';

/**
 * The token of the stage after the one `token` opens. Step n's response must hand out step n + 1's
 * token while only hashes are stored, so stage tokens form a one-way chain: whoever holds token n can
 * compute tokens n + 1... (the start response gave that caller all of them anyway), nobody can go back,
 * and nothing in the database lets anyone compute any token.
 */
export function nextStageToken(token: string): string {
  return tokenPrefix.execution + createHmac('sha256', token).update(CHAIN_LABEL).digest('base64url');
}

/** `count` stage tokens for a new run: a fresh random first token, then its chain. */
export function newStageTokens(count: number): string[] {
  const tokens: string[] = [];
  let token = newToken('execution');
  for (let i = 0; i < count; i++) {
    tokens.push(token);
    token = nextStageToken(token);
  }
  return tokens;
}

export function stageTokenHashes(tokens: readonly string[]): string[] {
  return tokens.map(hashToken);
}
