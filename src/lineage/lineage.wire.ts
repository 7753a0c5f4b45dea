import type { BlueprintView } from '../blueprints/blueprint.view';
import { blueprintColumns, projectionOf } from '../blueprints/blueprint.projection';
import { getBlueprint } from '../blueprints/blueprint.service';
import { toCard, toTeamBlueprintItem } from '../blueprints/blueprint.wire';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { childrenOf, forksOf, parentsOf } from './lineage.service';

/** Every column but the plan: a fork list never reads a plan (docs/limits.md, "Response budget"). */
const forkItemColumns = projectionOf(blueprintColumns.filter((c) => c !== 'plan' && c !== 'plan_bytes'));

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
  const bp = await getBlueprint(ctx, idOrSlug);
  const forks = await forksOf(ctx, bp.id, page, forkItemColumns);
  return { items: forks.items.map((f) => toForkItem(f, bp)), total: forks.total, ...page };
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
