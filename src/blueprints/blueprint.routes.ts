import { requestContext } from '../platform/http/http';
import { type RouteModule } from '../platform/http/routes';
import { removeBlueprint, transferBlueprint, updateBlueprint } from './blueprint-lifecycle.service';
import { blueprintContract } from './blueprint.contract';
import { getBlueprint, starBlueprint } from './blueprint.service';
import { teamBlueprintsBody, toBlueprintBody, toStarBody } from './blueprint.wire';

type IdParams = { Params: { id: string } };

export const blueprintRoutes: RouteModule = (app, deps) => {
  app.get<IdParams>('/api/blueprints/:id', { schema: blueprintContract.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toBlueprintBody(ctx, await getBlueprint(ctx, request.params.id));
  });

  app.patch<IdParams>('/api/blueprints/:id', { schema: blueprintContract.update }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toBlueprintBody(ctx, await updateBlueprint(ctx, request.params.id, request.body));
  });

  app.delete<IdParams>('/api/blueprints/:id', { schema: blueprintContract.remove }, async (request, reply) => {
    await removeBlueprint(await requestContext(request, deps), request.params.id);
    return reply.status(204).send();
  });

  app.post<IdParams & { Body: unknown }>('/api/blueprints/:id/transfer', { schema: blueprintContract.transfer }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toBlueprintBody(ctx, await transferBlueprint(ctx, request.params.id, request.body));
  });

  /** A team's blueprints, newest first (its members). */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/teams/:id/blueprints',
    { schema: blueprintContract.teamBlueprints },
    async (request) => teamBlueprintsBody(await requestContext(request, deps), request.params.id, request.query),
  );

  for (const [method, on] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    app.route<IdParams>({
      method,
      url: '/api/blueprints/:id/star',
      schema: blueprintContract.star,
      handler: async (request) => {
        const ctx = await requestContext(request, deps);
        return toStarBody(await starBlueprint(ctx, request.params.id, on), on);
      },
    });
  }
};
