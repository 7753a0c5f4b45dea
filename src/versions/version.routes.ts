import { requestContext } from '../platform/http';
import { idParam, pageQuery, type RouteModule } from '../platform/routes';
import { versionsBody } from './version.wire';

type IdParams = { Params: { id: string } };

export const versionRoutes: RouteModule = (app, deps) => {
  /** The plan's history, newest first; owner only. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/versions',
    { schema: { params: idParam('id'), querystring: pageQuery } },
    async (request) => versionsBody(await requestContext(request, deps), request.params.id, request.query),
  );
};
