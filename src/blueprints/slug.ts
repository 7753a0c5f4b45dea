import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import slugify from 'slugify';
import { textArrayLiteral } from '../platform/sql/pg-array';

/** The readable base of a slug: lowercase ASCII words joined by dashes, at most 60 characters. */
export function slugBase(name: string, fallback: string): string {
  const base = slugify(name, { lower: true, strict: true, trim: true }).slice(0, 60).replace(/-+$/, '');
  return base || fallback;
}

/** A short random suffix for a slug whose base is taken. */
export function slugSuffix(): string {
  return randomBytes(4).toString('hex').slice(0, 6);
}

/** How many suffixed slugs are offered beside the base, should it be taken. */
const SUFFIXED_CANDIDATES = 5;

/**
 * A slug unused in `table`: the base when free, else the base with a random suffix. Every candidate is
 * asked about in one read (`taken` answers those in use): a fork's base is its source's slug, so asking
 * one at a time cost every fork two round trips. The unique index is the final guard; callers run inside
 * the write transaction.
 */
export async function uniqueSlug(taken: (candidates: string[]) => Promise<Iterable<string>>, name: string, fallback: string): Promise<string> {
  const base = slugBase(name, fallback);
  const candidates = [base, ...Array.from({ length: SUFFIXED_CANDIDATES }, () => `${base}-${slugSuffix()}`)];
  const used = new Set(await taken(candidates));
  const free = candidates.find((candidate) => !used.has(candidate));
  if (free === undefined) throw new Error(`could not find a free slug for "${base}"`);
  return free;
}

/** `uniqueSlug` against the slugs of `table`, read on `em` (the write's transaction). */
export function freeSlug(em: EntityManager, table: 'blueprint' | 'architecture', name: string, fallback: string): Promise<string> {
  return uniqueSlug(
    async (candidates) => {
      const rows: Array<{ slug: string }> = await em.execute(`select slug from ${table} where slug = any(?::text[])`, [textArrayLiteral(candidates)]);
      return rows.map((r) => r.slug);
    },
    name,
    fallback,
  );
}
