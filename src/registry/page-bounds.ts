import type { PageRequest } from '../platform/pagination';

/**
 * A page's bounds as SQL: `offset ? limit ?`, or for a prepared statement's usual page (the first, of
 * `usual` rows or one more for an uncounted page) the constant `limit n`. PostgreSQL's generic plan assumes
 * a parameter LIMIT fetches a tenth of the rows, so a prepared page with parameter bounds is planned anew on
 * every call (bind 0.17-0.39 ms at 100,000 blueprints); with constants its generic plan is the custom one
 * and is kept. Only these two limits are constants, so the statement texts stay few (`executeShaped`
 * prepares at most 100 per process).
 */
export function pageBounds(page: PageRequest, usual: number | null): PageBounds {
  if (usual !== null && page.offset === 0 && (page.limit === usual || page.limit === usual + 1))
    return { offset: '0', limit: String(page.limit), end: String(page.limit), params: { offset: [], limit: [], end: [] } };
  return { offset: '?', limit: '?', end: '?', params: { offset: [page.offset], limit: [page.limit], end: [page.offset + page.limit] } };
}

/** SQL for a page's offset, limit and end (offset + limit): constants, or `?` with their values in `params`. */
export interface PageBounds {
  offset: string;
  limit: string;
  end: string;
  params: { offset: unknown[]; limit: unknown[]; end: unknown[] };
}
