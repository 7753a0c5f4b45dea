import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { versionContract } from './version.contract';
import { versionsBody } from './version.wire';
import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { updateBlueprintPlan } from './plan-edit.service';

type IdParams = { Params: { id: string } };

export const versionRoutes: RouteModule = (app, deps) => {
  /** The plan's history, newest first; owner only. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>('/api/blueprints/:id/versions', { schema: versionContract.list }, async (request) =>
    versionsBody(await requestContext(request, deps), request.params.id, request.query),
  );

  /** Replaces the plan (owner or team editor), with optimistic concurrency on `base_version`. */
  app.put<IdParams & { Body: unknown }>('/api/blueprints/:id/plan', { schema: versionContract.updatePlan }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toBlueprintBody(ctx, (await updateBlueprintPlan(ctx, request.params.id, request.body)).blueprint);
  });
};
