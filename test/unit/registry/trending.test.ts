import { trendingScore, trendingScoreSql, trendingWeights } from '../../../src/registry/trending';
import { normaliseTagList, parseTags, parseWindowDays } from '../../../src/registry/registry.service';

describe('trendingScore', () => {
  it('weighs a principal with a successful run (5) over one who forked (3) over one who starred (1), as section 15 says', () => {
    expect(trendingWeights).toEqual({ star: 1, fork: 3, execution: 5 });
    expect(trendingScore({ stars: 1, forks: 0, executions: 0 })).toBeLessThan(trendingScore({ stars: 0, forks: 1, executions: 0 }));
    expect(trendingScore({ stars: 0, forks: 1, executions: 0 })).toBeLessThan(trendingScore({ stars: 0, forks: 0, executions: 1 }));
    expect(trendingScore({ stars: 0, forks: 0, executions: 0 })).toBe(0);
  });

  it('is the same sum as its SQL mirror', () => {
    const activity = { stars: 7, forks: 2, executions: 5 };
    const evaluated = Function('stars', 'forks', 'executions', `return ${trendingScoreSql}`)(activity.stars, activity.forks, activity.executions);
    expect(evaluated).toBe(trendingScore(activity));
    expect(trendingScore(activity)).toBe(7 * trendingWeights.star + 2 * trendingWeights.fork + 5 * trendingWeights.execution);
  });
});

describe('parseWindowDays', () => {
  it('defaults to 7 days and accepts integers from 1 to 365', () => {
    expect(parseWindowDays(undefined)).toBe(7);
    expect(parseWindowDays('')).toBe(7);
    expect(parseWindowDays('1')).toBe(1);
    expect(parseWindowDays(365)).toBe(365);
  });

  it.each(['0', '366', '-1', '1.5', 'week', '1e2', ' 7', 0, 3.5])('rejects %p naming the argument', (raw) => {
    expect(() => parseWindowDays(raw)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: { issues: [expect.objectContaining({ path: 'window_days' })] } }),
    );
    expect(() => parseWindowDays(raw, 'windowDays')).toThrow(
      expect.objectContaining({ details: { issues: [expect.objectContaining({ path: 'windowDays' })] } }),
    );
  });
});

describe('tags', () => {
  it('splits on commas, trims, lowercases, drops empties and repeats', () => {
    expect(parseTags(' SaaS, api,,saas ,')).toEqual(['saas', 'api']);
    expect(parseTags(undefined)).toEqual([]);
    expect(normaliseTagList(['A', 'a', ' b '])).toEqual(['a', 'b']);
  });

  it('rejects a tags parameter that is not a string', () => {
    expect(() => parseTags(['a', 'b'])).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
