import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { reviewsOf, type Review } from './review.service';

/** A review's REST (and MCP) body. */
export function toReviewBody(r: Review) {
  return {
    id: r.id,
    blueprint_id: r.blueprintId,
    reviewer: { id: r.reviewerId, name: r.reviewerName },
    rating: r.rating,
    body: r.body,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** `GET /api/blueprints/:id/reviews` (REST and MCP): newest first. */
export async function reviewsPageBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const result = await reviewsOf(ctx, idOrSlug, page);
  return { items: result.items.map(toReviewBody), total: result.total, ...page };
}
