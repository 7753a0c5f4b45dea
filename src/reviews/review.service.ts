import { randomUUID } from 'node:crypto';
import { requireViewer } from '../auth/auth.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { reviewInputs } from './review.contract';
import type { PageRequest } from '../platform/pagination';

/** A review as every adapter shows it. */
export interface Review {
  id: string;
  blueprintId: string;
  reviewerId: string;
  reviewerName: string;
  rating: number;
  body: string;
  createdAt: Date;
  updatedAt: Date;
}

interface ReviewRow {
  id: string;
  blueprint_id: string;
  reviewer_id: string;
  reviewer_name: string;
  rating: number;
  body: string;
  created_at: Date;
  updated_at: Date;
}

const toReview = (r: ReviewRow): Review => ({
  id: r.id,
  blueprintId: r.blueprint_id,
  reviewerId: r.reviewer_id,
  reviewerName: r.reviewer_name,
  rating: Number(r.rating),
  body: r.body,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const selectReview = `select r.id, r.blueprint_id, r.reviewer_id, p.name as reviewer_name, r.rating, r.body, r.created_at, r.updated_at
  from review r join principal p on p.id = r.reviewer_id`;

const createBody = compileSchema(reviewInputs.create);
const updateBody = compileSchema(reviewInputs.update);

/**
 * `POST /api/blueprints/:id/reviews`: one review per reviewer (a second is 409), never by the blueprint's
 * owner (403), on a blueprint the reviewer may read (404 otherwise). The blueprint's `review_count` and
 * `rating_sum` change in the same transaction, so cards read them without aggregating.
 */
export async function reviewBlueprint(ctx: RequestContext, blueprintId: string, body: unknown): Promise<Review> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId);
  if (bp.owner.id === viewer.principalId) throw forbidden('The owner may not review their own blueprint');
  const input = assertValid<{ rating: number; body: string }>(createBody, body ?? {}, 'body');
  const review = await ctx.em.transactional(async (tx) => {
    const inserted: Array<{ id: string }> = await tx.execute(
      `insert into review (id, blueprint_id, reviewer_id, rating, body) values (?, ?, ?, ?, ?)
       on conflict (blueprint_id, reviewer_id) do nothing returning id`,
      [randomUUID(), bp.id, viewer.principalId, input.rating, input.body],
    );
    if (inserted.length === 0) throw conflict('You have already reviewed this blueprint; PATCH /api/blueprints/:id/reviews/mine changes it');
    const counted = await tx.execute('update blueprint set review_count = review_count + 1, rating_sum = rating_sum + ? where id = ? returning id', [
      input.rating,
      bp.id,
    ]);
    if (counted.length === 0) throw notFound('blueprint', blueprintId);
    const rows: ReviewRow[] = await tx.execute(`${selectReview} where r.id = ?`, [inserted[0]!.id]);
    return toReview(rows[0]!);
  });
  ctx.loaders.clear();
  return review;
}

/** `PATCH .../reviews/mine {rating?, body?}`: 404 when the caller has no review there. */
export async function updateMyReview(ctx: RequestContext, blueprintId: string, body: unknown): Promise<Review> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId);
  const input = assertValid<{ rating?: number; body?: string }>(updateBody, body ?? {}, 'body');
  const review = await ctx.em.transactional(async (tx) => {
    const old: Array<{ rating: number }> = await tx.execute('select rating from review where blueprint_id = ? and reviewer_id = ? for update', [
      bp.id,
      viewer.principalId,
    ]);
    if (old.length === 0) throw notFound('review');
    const rating = input.rating ?? Number(old[0]!.rating);
    await tx.execute('update review set rating = ?, body = coalesce(?, body), updated_at = clock_timestamp() where blueprint_id = ? and reviewer_id = ?', [
      rating,
      input.body ?? null,
      bp.id,
      viewer.principalId,
    ]);
    await tx.execute('update blueprint set rating_sum = rating_sum + ? where id = ?', [rating - Number(old[0]!.rating), bp.id]);
    const rows: ReviewRow[] = await tx.execute(`${selectReview} where r.blueprint_id = ? and r.reviewer_id = ?`, [bp.id, viewer.principalId]);
    return toReview(rows[0]!);
  });
  ctx.loaders.clear();
  return review;
}

/** `DELETE .../reviews/mine`: 404 when the caller has no review there. */
export async function deleteMyReview(ctx: RequestContext, blueprintId: string): Promise<void> {
  const viewer = requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId);
  await ctx.em.transactional(async (tx) => {
    const gone: Array<{ rating: number }> = await tx.execute('delete from review where blueprint_id = ? and reviewer_id = ? returning rating', [
      bp.id,
      viewer.principalId,
    ]);
    if (gone.length === 0) throw notFound('review');
    await tx.execute('update blueprint set review_count = review_count - 1, rating_sum = rating_sum - ? where id = ?', [Number(gone[0]!.rating), bp.id]);
  });
  ctx.loaders.clear();
}

/** Reviews of a blueprint the caller may read, newest first (404 for a private one they may not see). */
export async function reviewsOf(ctx: RequestContext, blueprintId: string, page: PageRequest): Promise<{ items: Review[]; total: number }> {
  const bp = await getBlueprint(ctx, blueprintId);
  const rows: Array<ReviewRow & { total: string }> = await ctx.em.execute(
    `select count(*) over () as total, r.id, r.blueprint_id, r.reviewer_id, p.name as reviewer_name, r.rating, r.body, r.created_at, r.updated_at
       from review r join principal p on p.id = r.reviewer_id
      where r.blueprint_id = ? order by r.created_at desc, r.id desc offset ? limit ?`,
    [bp.id, page.offset, page.limit],
  );
  // Past the last page the window count is absent; the counter on the blueprint is the same number.
  return { items: rows.map(toReview), total: rows.length > 0 ? Number(rows[0]!.total) : bp.reviewCount };
}

/**
 * The caller's own review of a blueprint they may read, or null (anonymous, or none yet). A client finds it
 * here however many reviews are newer than it (the list is paged, newest first).
 */
export async function viewerReviewOf(ctx: RequestContext, blueprintId: string): Promise<Review | null> {
  if (!ctx.viewer) return null;
  const bp = await getBlueprint(ctx, blueprintId);
  const rows: ReviewRow[] = await ctx.em.execute(`${selectReview} where r.blueprint_id = ? and r.reviewer_id = ?`, [bp.id, ctx.viewer.principalId]);
  return rows[0] ? toReview(rows[0]) : null;
}
