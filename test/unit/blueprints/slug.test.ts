import { slugBase, uniqueSlug } from '../../../src/blueprints/slug';

describe('slugs', () => {
  it('makes a lowercase dashed ASCII base of at most 60 characters', () => {
    expect(slugBase('Invoice App', 'x')).toBe('invoice-app');
    expect(slugBase('Crème brûlée & Co!', 'x')).toBe('creme-brulee-and-co');
    expect(slugBase('a'.repeat(80), 'x')).toHaveLength(60);
    expect(slugBase('!!!', 'fork')).toBe('fork');
  });

  it('uses the base when free and a suffixed base when taken', async () => {
    expect(await uniqueSlug(async () => false, 'Invoice App', 'x')).toBe('invoice-app');
    const taken = new Set(['invoice-app']);
    expect(await uniqueSlug(async (s) => taken.has(s), 'Invoice App', 'x')).toMatch(/^invoice-app-[0-9a-f]{6}$/);
  });

  it('gives up with an error rather than loop forever when every candidate is taken', async () => {
    await expect(uniqueSlug(async () => true, 'Busy', 'x')).rejects.toThrow(/free slug/);
  });
});
