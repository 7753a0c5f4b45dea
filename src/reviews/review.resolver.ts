import { Arg, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { principalById } from '../auth/principal.loaders';
import type { RequestContext } from '../platform/context';
import { LazyConnection, connectionType } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { deleteMyReview, reviewBlueprint, reviewsOf, updateMyReview, viewerReviewOf, type Review } from './review.service';

@ObjectType('Review', { description: "A reader's rating (1-5) and words about a blueprint; one per reviewer." })
export class ReviewType {
  @Field(() => ID) id!: string;
  @Field(() => ID) blueprintId!: string;
  reviewerId!: string;
  @Field(() => Int) rating!: number;
  @Field(() => String) body!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

export const ReviewConnection = connectionType(ReviewType, 'Review');

const toType = (r: Review): ReviewType => Object.assign(new ReviewType(), r);

@Resolver(() => ReviewType)
export class ReviewResolver {
  @FieldResolver(() => Principal)
  async reviewer(@Root() review: ReviewType, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, review.reviewerId))!;
  }

  @Mutation(() => ReviewType, { description: 'Reviews a blueprint you may read and do not own; a second review is CONFLICT.' })
  async reviewBlueprint(
    @Ctx() ctx: RequestContext,
    @Arg('blueprintId', () => ID) blueprintId: string,
    @Arg('rating', () => Int) rating: number,
    @Arg('body', () => String) body: string,
  ): Promise<ReviewType> {
    return toType(await reviewBlueprint(ctx, blueprintId, { rating, body }));
  }

  @Mutation(() => ReviewType, { description: 'Changes your review of a blueprint.' })
  async updateMyReview(
    @Ctx() ctx: RequestContext,
    @Arg('blueprintId', () => ID) blueprintId: string,
    @Arg('rating', () => Int, { nullable: true }) rating?: number | null,
    @Arg('body', () => String, { nullable: true }) body?: string | null,
  ): Promise<ReviewType> {
    return toType(await updateMyReview(ctx, blueprintId, { ...(rating != null ? { rating } : {}), ...(body != null ? { body } : {}) }));
  }

  @Mutation(() => Boolean, { description: 'Deletes your review of a blueprint.' })
  async deleteMyReview(@Ctx() ctx: RequestContext, @Arg('blueprintId', () => ID) blueprintId: string): Promise<boolean> {
    await deleteMyReview(ctx, blueprintId);
    return true;
  }
}

@Resolver(() => Blueprint)
export class BlueprintReviewsResolver {
  @FieldResolver(() => ReviewConnection, { description: 'Reviews, newest first.' })
  reviews(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ReviewType> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, async () => {
      const result = await reviewsOf(ctx, bp.id, page);
      return { items: result.items.map(toType), total: result.total };
    });
  }

  @FieldResolver(() => ReviewType, { nullable: true, description: 'Your own review of this blueprint; null when you have not reviewed it.' })
  async viewerReview(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<ReviewType | null> {
    const review = await viewerReviewOf(ctx, bp.id);
    return review ? toType(review) : null;
  }
}
