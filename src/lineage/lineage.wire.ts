import type { BlueprintView } from '../blueprints/blueprint.view';
import { listProjection } from '../blueprints/blueprint.projection';
import { readBlueprint } from '../blueprints/blueprint.service';
import { toCard, toTeamBlueprintItem } from '../blueprints/blueprint.wire';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { childrenOf, forksOf, parentsOf } from './lineage.service';

/**
 * An item of `GET /api/blueprints/:id/forks`: the card with description, tags, owner, team, visibility,
 * counts and times, and `forked_from` (the listed blueprint); never the plan, which
 * `GET /api/blueprints/:id` answers one fork at a time. A page of 100 forks of a plan at the size limit
 * was 92 MB as full bodies; as items it is about 50 KB.
 */
function toForkItem(fork: BlueprintView, parent: BlueprintView) {
  return { ...toTeamBlueprintItem(fork), forked_from: { id: parent.id, slug: parent.slug, name: parent.name } };
}

/** `GET /api/blueprints/:id/forks` (REST and MCP): public forks, oldest first, as items without plans. */
export async function forksBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  // Neither the listed blueprint's plan nor its forks' are read (docs/limits.md, "Response budget").
  const bp = await readBlueprint(ctx, idOrSlug, listProjection);
  const forks = await forksOf(ctx, bp.id, page, listProjection);
  return { items: forks.items.map((f) => toForkItem(f, bp)), total: forks.total, ...page };
}

/** `GET /api/blueprints/:id/lineage` (REST and MCP): direct parents and children the caller may see, as cards. */
export async function lineageBody(ctx: RequestContext, idOrSlug: string) {
  const bp = await readBlueprint(ctx, idOrSlug, listProjection);
  const [parents, children] = await Promise.all([parentsOf(ctx, bp.id, listProjection), childrenOf(ctx, bp.id, listProjection)]);
  return {
    blueprint_id: bp.id,
    parents: parents.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
    children: children.map((r) => ({ kind: r.kind, blueprint: toCard(r.blueprint) })),
  };
}
