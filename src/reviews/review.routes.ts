import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { reviewContract } from './review.contract';
import { deleteMyReview, reviewBlueprint, updateMyReview } from './review.service';
import { reviewsPageBody, toReviewBody } from './review.wire';

type IdParams = { Params: { id: string } };

export const reviewRoutes: RouteModule = (app, deps) => {
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/reviews', { schema: reviewContract.list }, async (request) =>
    reviewsPageBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.post<IdParams>('/api/blueprints/:id/reviews', { schema: reviewContract.create }, async (request, reply) =>
    reply.status(201).send(toReviewBody(await reviewBlueprint(await requestContext(request, deps), request.params.id, request.body))),
  );

  app.patch<IdParams>('/api/blueprints/:id/reviews/mine', { schema: reviewContract.update }, async (request) =>
    toReviewBody(await updateMyReview(await requestContext(request, deps), request.params.id, request.body)),
  );

  app.delete<IdParams>('/api/blueprints/:id/reviews/mine', { schema: reviewContract.remove }, async (request, reply) => {
    await deleteMyReview(await requestContext(request, deps), request.params.id);
    return reply.status(204).send();
  });
};
