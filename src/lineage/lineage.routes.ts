import { toBlueprintBody, toCard } from '../blueprints/blueprint.wire';
import { getBlueprint } from '../blueprints/blueprint.service';
import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/routes';
import { lineageSchemas } from './lineage.schemas';
import { childrenOf, forksOf, parentsOf } from './lineage.service';

type IdParams = { Params: { id: string } };

export const lineageRoutes: RouteModule = (app, deps) => {
  /** Public forks of a blueprint, oldest first, as full blueprint bodies. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/forks',
    { schema: lineageSchemas.forks },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const page = pageFromQuery(request.query, deps.config.limits);
      const bp = await getBlueprint(ctx, request.params.id);
      const forks = await forksOf(ctx, bp.id, page);
      return { items: await Promise.all(forks.items.map((f) => toBlueprintBody(ctx, f))), total: forks.total, ...page };
    },
  );

  /** Direct parents (forked from, bred from) and children (forks, breed offspring) the caller may see. */
  app.get<IdParams>('/api/blueprints/:id/lineage', { schema: lineageSchemas.lineage }, async (request) => {
    const ctx = await requestContext(request, deps);
    const bp = await getBlueprint(ctx, request.params.id);
    const [parents, children] = await Promise.all([parentsOf(ctx, bp.id), childrenOf(ctx, bp.id)]);
    return {
      blueprint_id: bp.id,
      parents: parents.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
      children: children.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
    };
  });
};
