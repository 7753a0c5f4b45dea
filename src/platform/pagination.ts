import type { Limits } from './config';
import { invalid } from './errors';

/** A validated page request, whether it came as REST `limit/offset` or GraphQL `first/after`. */
export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

function toInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // Digits only (no "1e3", "0x10", " 5"), and small enough that PostgreSQL's bigint OFFSET accepts it.
  const n = typeof value === 'number' ? value : /^-?\d{1,15}$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(name, 'must be an integer');
  return n;
}

/** REST `limit` (default 20, 1..max) and `offset` (>= 0); out of range is 400, never clamped silently. */
export function pageFromQuery(query: { limit?: unknown; offset?: unknown }, limits: Limits): PageRequest {
  const limit = toInt(query.limit, 'limit') ?? limits.pageDefault;
  const offset = toInt(query.offset, 'offset') ?? 0;
  if (limit < 1 || limit > limits.pageMax) throw invalid('limit', `must be between 1 and ${limits.pageMax}`);
  if (offset < 0) throw invalid('offset', 'must be 0 or more');
  return { limit, offset };
}

/** Relay cursors are opaque; here they encode the position in the ordered list. */
export function encodeCursor(position: number): string {
  return Buffer.from(`pos:${position}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^pos:(\d{1,15})$/.exec(decoded);
  if (!match) throw invalid('after', 'is not a valid cursor', 'after is not a cursor this API issued');
  return Number(match[1]);
}

/** GraphQL `first` (default 20, 1..max) and `after` (a cursor) as a page request. */
export function pageFromConnectionArgs(args: { first?: number | null; after?: string | null }, limits: Limits): PageRequest {
  const limit = args.first ?? limits.pageDefault;
  if (limit < 1 || limit > limits.pageMax) throw invalid('first', `must be between 1 and ${limits.pageMax}`);
  const offset = args.after ? decodeCursor(args.after) + 1 : 0;
  return { limit, offset };
}
