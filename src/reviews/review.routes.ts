import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import { idParam, pageQuery, type RouteModule } from '../platform/routes';
import { deleteMyReview, reviewBlueprint, reviewsOf, updateMyReview } from './review.service';
import { toReviewBody } from './review.wire';

type IdParams = { Params: { id: string } };

export const reviewRoutes: RouteModule = (app, deps) => {
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/reviews',
    { schema: { params: idParam('id'), querystring: pageQuery } },
    async (request) => {
      const page = pageFromQuery(request.query, deps.config.limits);
      const result = await reviewsOf(await requestContext(request, deps), request.params.id, page);
      return { items: result.items.map(toReviewBody), total: result.total, ...page };
    },
  );

  app.post<IdParams>('/api/blueprints/:id/reviews', { schema: { params: idParam('id') } }, async (request, reply) =>
    reply.status(201).send(toReviewBody(await reviewBlueprint(await requestContext(request, deps), request.params.id, request.body))),
  );

  app.patch<IdParams>('/api/blueprints/:id/reviews/mine', { schema: { params: idParam('id') } }, async (request) =>
    toReviewBody(await updateMyReview(await requestContext(request, deps), request.params.id, request.body)),
  );

  app.delete<IdParams>('/api/blueprints/:id/reviews/mine', { schema: { params: idParam('id') } }, async (request, reply) => {
    await deleteMyReview(await requestContext(request, deps), request.params.id);
    return reply.status(204).send();
  });
};
