import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { compareContract } from './compare.contract';
import { compareWithParent } from './compare.service';
import { toComparisonBody } from './compare.wire';

export const compareRoutes: RouteModule = (app, deps) => {
  /** A fork vs its parent since the fork point; public forks of public parents need no token. */
  app.get<{ Params: { id: string } }>('/api/blueprints/:id/compare', { schema: compareContract.compare }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toComparisonBody(await compareWithParent(ctx, request.params.id));
  });
};
