import type { AreaModule } from '../platform/area';
import { BlueprintReviewsResolver, ReviewResolver } from './review.resolver';
import { reviewRoutes } from './review.routes';

/** The reviews area: everything it adds to the app. */
export const reviewsModule: AreaModule = {
  name: 'reviews',
  resolvers: [ReviewResolver, BlueprintReviewsResolver],
  routes: reviewRoutes,
};
