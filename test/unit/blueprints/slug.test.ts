import { slugBase, uniqueSlug } from '../../../src/blueprints/slug';

describe('slugs', () => {
  it('makes a lowercase dashed ASCII base of at most 60 characters', () => {
    expect(slugBase('Invoice App', 'x')).toBe('invoice-app');
    expect(slugBase('Crème brûlée & Co!', 'x')).toBe('creme-brulee-and-co');
    expect(slugBase('a'.repeat(80), 'x')).toHaveLength(60);
    expect(slugBase('!!!', 'fork')).toBe('fork');
  });

  it('uses the base when free and a suffixed base when taken', async () => {
    expect(await uniqueSlug(async () => [], 'Invoice App', 'x')).toBe('invoice-app');
    expect(await uniqueSlug(async () => ['invoice-app'], 'Invoice App', 'x')).toMatch(/^invoice-app-[0-9a-f]{6}$/);
  });

  it('asks about the base and every suffixed candidate in one call, and skips the taken ones', async () => {
    const asked: string[][] = [];
    const slug = await uniqueSlug(
      async (candidates) => {
        asked.push(candidates);
        return candidates.slice(0, 3);
      },
      'Invoice App',
      'x',
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]![0]).toBe('invoice-app');
    expect(asked[0]!.slice(1)).toEqual(expect.arrayContaining([expect.stringMatching(/^invoice-app-[0-9a-f]{6}$/)]));
    expect(slug).toBe(asked[0]![3]);
  });

  it('gives up with an error rather than loop forever when every candidate is taken', async () => {
    await expect(uniqueSlug(async (candidates) => candidates, 'Busy', 'x')).rejects.toThrow(/free slug/);
  });
});
