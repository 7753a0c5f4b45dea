import type { EntityManager } from '@mikro-orm/postgresql';
import type { BlueprintChange } from '../blueprints/blueprint.hooks';
import type { RequestContext } from '../platform/context';

type NodeRow = { id: string; architecture_id: string; slug: string };

async function announce(ctx: RequestContext, tx: EntityManager, nodes: NodeRow[], change: 'node_removed' | 'node_updated', actorId: string): Promise<void> {
  for (const n of nodes)
    await ctx.events.publish(tx, 'architecture.changed', { architectureId: n.architecture_id, slug: n.slug, change, subjectId: n.id, actorId });
}

/** A blueprint is being deleted: its nodes leave every architecture (edges go by cascade), NODE_REMOVED each. */
export async function removeNodesOfDeletedBlueprint(tx: EntityManager, ctx: RequestContext, e: BlueprintChange): Promise<void> {
  const nodes: NodeRow[] = await tx.execute(
    `with gone as (delete from architecture_node where blueprint_id = ? returning id, architecture_id)
     update architecture a set updated_at = now() from gone where a.id = gone.architecture_id returning gone.id, a.id as architecture_id, a.slug`,
    [e.blueprintId],
  );
  await announce(ctx, tx, nodes, 'node_removed', e.actorId);
}

/** A blueprint's name or visibility changed: every architecture showing it tells its subscribers (NODE_UPDATED). */
export async function touchNodesOfChangedBlueprint(tx: EntityManager, ctx: RequestContext, e: BlueprintChange): Promise<void> {
  const nodes: NodeRow[] = await tx.execute(
    `update architecture a set updated_at = now() from architecture_node n
      where n.blueprint_id = ? and a.id = n.architecture_id returning n.id, a.id as architecture_id, a.slug`,
    [e.blueprintId],
  );
  await announce(ctx, tx, nodes, 'node_updated', e.actorId);
}
