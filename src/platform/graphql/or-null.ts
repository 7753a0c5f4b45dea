/**
 * GraphQL's "null when missing": a read that fails with NOT_FOUND (no such thing, or a private thing the
 * caller may not see) answers null; every other error is thrown as it is.
 */
export async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if ((err as { code?: string }).code === 'NOT_FOUND') return null;
    throw err;
  }
}
