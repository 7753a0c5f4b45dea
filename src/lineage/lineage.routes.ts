import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { lineageSchemas } from './lineage.schemas';
import { forksBody, lineageBody } from './lineage.wire';

type IdParams = { Params: { id: string } };

export const lineageRoutes: RouteModule = (app, deps) => {
  /** Public forks of a blueprint, oldest first, as full blueprint bodies. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/forks', { schema: lineageSchemas.forks }, async (request) =>
    forksBody(await requestContext(request, deps), request.params.id, request.query),
  );

  /** Direct parents (forked from, bred from) and children (forks, breed offspring) the caller may see. */
  app.get<IdParams>('/api/blueprints/:id/lineage', { schema: lineageSchemas.lineage }, async (request) =>
    lineageBody(await requestContext(request, deps), request.params.id),
  );
};
