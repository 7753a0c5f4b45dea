import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/routes';
import { versionSchemas } from './version.schemas';
import { historyOf, versionsOf } from './history.service';
import { toVersionBody } from './version.wire';

type IdParams = { Params: { id: string } };

export const versionRoutes: RouteModule = (app, deps) => {
  /** The plan's history, newest first; owner only. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/versions',
    { schema: versionSchemas.list },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const page = pageFromQuery(request.query, deps.config.limits);
      const bp = await historyOf(ctx, request.params.id);
      const versions = await versionsOf(ctx, bp.id, page);
      return { items: versions.items.map(toVersionBody), total: versions.total, ...page };
    },
  );
};
