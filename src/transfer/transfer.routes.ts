import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { transferContract } from './transfer.contract';
import { exportBlueprint, importBlueprint } from './transfer.service';

/** Export and import over REST (docs/transfer.md). */
export const transferRoutes: RouteModule = (app, deps) => {
  app.get<{ Params: { id: string }; Querystring: { format?: string } }>('/api/blueprints/:id/export', { schema: transferContract.export }, async (request) =>
    exportBlueprint(await requestContext(request, deps), request.params.id, request.query.format),
  );

  app.post<{ Body: unknown }>('/api/blueprints/import', { schema: transferContract.import }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    const bp = await importBlueprint(ctx, request.body);
    return reply.status(201).send(await toBlueprintBody(ctx, bp));
  });
};
