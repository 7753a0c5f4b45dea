import { createHash } from 'node:crypto';
import { bearerFrom, hashToken, newToken, tokenMatches } from '../../../src/platform/sql/tokens';

describe('tokens', () => {
  it('are a readable prefix and 32 random bytes (43 base64url characters), never repeated', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => newToken('agent')));
    expect(tokens.size).toBe(200);
    for (const token of tokens) expect(token).toMatch(/^bwa_[A-Za-z0-9_-]{43}$/);
    expect(newToken('user')).toMatch(/^bwu_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(newToken('user').slice(4), 'base64url')).toHaveLength(32);
  });

  it('are stored as their SHA-256 hex digest, which matches only the same token', () => {
    const token = newToken('agent');
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(tokenMatches(token, hashToken(token))).toBe(true);
    expect(tokenMatches(token + 'x', hashToken(token))).toBe(false);
    expect(tokenMatches(token, 'not-a-hash')).toBe(false);
  });
});

describe('bearerFrom', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerFrom(header)).toBe(expected);
  });

  it.each([['Bearer'], ['Bearer '], ['Bearer a b'], ['Token abc'], ['abc'], ['Basic dXNlcjpwYXNz']])('calls %j malformed (null)', (header) => {
    expect(bearerFrom(header)).toBeNull();
  });
});
