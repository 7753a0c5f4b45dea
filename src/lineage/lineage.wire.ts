import { getBlueprint } from '../blueprints/blueprint.service';
import { toBlueprintBody, toCard } from '../blueprints/blueprint.wire';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { childrenOf, forksOf, parentsOf } from './lineage.service';

/** `GET /api/blueprints/:id/forks` (REST and MCP): public forks, oldest first, as full blueprint bodies. */
export async function forksBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const bp = await getBlueprint(ctx, idOrSlug);
  const forks = await forksOf(ctx, bp.id, page);
  return { items: await Promise.all(forks.items.map((f) => toBlueprintBody(ctx, f))), total: forks.total, ...page };
}

/** `GET /api/blueprints/:id/lineage` (REST and MCP): direct parents and children the caller may see, as cards. */
export async function lineageBody(ctx: RequestContext, idOrSlug: string) {
  const bp = await getBlueprint(ctx, idOrSlug);
  const [parents, children] = await Promise.all([parentsOf(ctx, bp.id), childrenOf(ctx, bp.id)]);
  return {
    blueprint_id: bp.id,
    parents: parents.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
    children: children.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
  };
}
