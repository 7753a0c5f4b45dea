import { randomBytes } from 'node:crypto';
import slugify from 'slugify';

/** The readable base of a slug: lowercase ASCII words joined by dashes, at most 60 characters. */
export function slugBase(name: string, fallback: string): string {
  const base = slugify(name, { lower: true, strict: true, trim: true }).slice(0, 60).replace(/-+$/, '');
  return base || fallback;
}

/** A short random suffix for a slug whose base is taken. */
export function slugSuffix(): string {
  return randomBytes(4).toString('hex').slice(0, 6);
}

/**
 * A slug unused in `table`: the base when free, else the base with a random suffix. The unique index is
 * the final guard; callers run inside the write transaction.
 */
export async function uniqueSlug(exists: (slug: string) => Promise<boolean>, name: string, fallback: string): Promise<string> {
  const base = slugBase(name, fallback);
  if (!(await exists(base))) return base;
  for (let attempt = 0; attempt < 5; attempt++) {
    const candidate = `${base}-${slugSuffix()}`;
    if (!(await exists(candidate))) return candidate;
  }
  throw new Error(`could not find a free slug for "${base}"`);
}
