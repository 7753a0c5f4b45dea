import { hashToken } from '../../../src/platform/sql/tokens';
import { newStageTokens, nextStageToken, stageTokenHashes } from '../../../src/execution/execution.tokens';

describe('stage tokens', () => {
  it('chains each token to the next, so step n can hand out step n + 1 while only hashes are stored', () => {
    const tokens = newStageTokens(5);
    expect(tokens).toHaveLength(5);
    for (let i = 0; i + 1 < tokens.length; i++) expect(nextStageToken(tokens[i]!)).toBe(tokens[i + 1]);
  });

  it('gives every run its own unguessable, distinct tokens with the execution prefix', () => {
    const a = newStageTokens(4);
    const b = newStageTokens(4);
    const all = [...a, ...b];
    expect(new Set(all).size).toBe(8);
    for (const t of all) expect(t).toMatch(/^bwx_[A-Za-z0-9_-]{43}$/);
  });

  it('stores SHA-256 hashes that reveal no token of the chain', () => {
    const tokens = newStageTokens(3);
    const hashes = stageTokenHashes(tokens);
    expect(hashes).toEqual(tokens.map(hashToken));
    for (const h of hashes) {
      expect(tokens.some((t) => t.includes(h) || h.includes(t.slice(4)))).toBe(false);
      expect(nextStageToken(h)).not.toBe(tokens[1]);
    }
  });
});
