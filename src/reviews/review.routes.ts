import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { reviewSchemas } from './review.schemas';
import { deleteMyReview, reviewBlueprint, updateMyReview } from './review.service';
import { reviewsPageBody, toReviewBody } from './review.wire';

type IdParams = { Params: { id: string } };

export const reviewRoutes: RouteModule = (app, deps) => {
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/reviews', { schema: reviewSchemas.list }, async (request) =>
    reviewsPageBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.post<IdParams>('/api/blueprints/:id/reviews', { schema: reviewSchemas.create }, async (request, reply) =>
    reply.status(201).send(toReviewBody(await reviewBlueprint(await requestContext(request, deps), request.params.id, request.body))),
  );

  app.patch<IdParams>('/api/blueprints/:id/reviews/mine', { schema: reviewSchemas.update }, async (request) =>
    toReviewBody(await updateMyReview(await requestContext(request, deps), request.params.id, request.body)),
  );

  app.delete<IdParams>('/api/blueprints/:id/reviews/mine', { schema: reviewSchemas.remove }, async (request, reply) => {
    await deleteMyReview(await requestContext(request, deps), request.params.id);
    return reply.status(204).send();
  });
};
