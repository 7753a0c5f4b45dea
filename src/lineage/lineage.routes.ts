import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { forkBlueprint } from './fork.service';
import { lineageContract } from './lineage.contract';
import { forksBody, lineageBody } from './lineage.wire';

type IdParams = { Params: { id: string } };

export const lineageRoutes: RouteModule = (app, deps) => {
  app.post<IdParams>('/api/blueprints/:id/fork', { schema: lineageContract.fork, config: { idempotent: true } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    const fork = await forkBlueprint(ctx, request.params.id);
    return reply.status(201).send(await toBlueprintBody(ctx, fork));
  });

  /** Public forks of a blueprint, oldest first, as full blueprint bodies. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/forks', { schema: lineageContract.forks }, async (request) =>
    forksBody(await requestContext(request, deps), request.params.id, request.query),
  );

  /** Direct parents (forked from, bred from) and children (forks, breed offspring) the caller may see. */
  app.get<IdParams>('/api/blueprints/:id/lineage', { schema: lineageContract.lineage }, async (request) =>
    lineageBody(await requestContext(request, deps), request.params.id),
  );
};
