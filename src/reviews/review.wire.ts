import type { Review } from './review.service';

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
