import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { versionSchemas } from './version.schemas';
import { versionsBody } from './version.wire';

type IdParams = { Params: { id: string } };

export const versionRoutes: RouteModule = (app, deps) => {
  /** The plan's history, newest first; owner only. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/versions', { schema: versionSchemas.list }, async (request) =>
    versionsBody(await requestContext(request, deps), request.params.id, request.query),
  );
};
