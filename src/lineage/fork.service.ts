import { ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import { Principal } from '../auth/principal.entity';
import { guardOf, isOwner } from '../blueprints/access';
import { Blueprint, Visibility } from '../blueprints/blueprint.entity';
import { recordFirstVersion } from '../blueprints/blueprint-version.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import { freeSlug } from '../blueprints/slug';
import type { RequestContext } from '../platform/context';
import { forbidden, notFound } from '../platform/errors';
import { LineageKind, LineageLink } from './lineage-link.entity';

/**
 * The bookkeeping of a fork, wherever one is made (the fork endpoint, a one-source NEW tool), inside the
 * caller's transaction: the source's forks count (public children only), each child's `forked_from` and lineage link, and one
 * `forked` activity event per child. The count is raised first and in SQL, so concurrent forks never lose
 * an increment, and a source deleted since it was read is a 404, not a foreign-key failure. Flushes `tx`.
 */
export async function recordForks(
  tx: EntityManager,
  ctx: RequestContext,
  sourceId: string,
  children: readonly Blueprint[],
  actorId: string,
  operationId: string | null = null,
): Promise<void> {
  // forks_count is a public figure: it counts public forks only (docs/reads.md), as `/forks` lists them.
  const publicChildren = children.filter((c) => c.visibility === Visibility.PUBLIC).length;
  const counted = await tx.execute('update blueprint set forks_count = forks_count + ? where id = ? returning id', [publicChildren, sourceId]);
  if (counted.length === 0) throw notFound('blueprint', sourceId);
  const sourceRef = tx.getReference(Blueprint, sourceId, { wrapped: true });
  for (const child of children) {
    child.forkedFrom = sourceRef;
    tx.persist(new LineageLink(sourceRef, ref(child), LineageKind.FORK, operationId));
  }
  await tx.flush();
  for (const child of children) {
    await ctx.events.publish(tx, 'blueprint.activity', { blueprintId: sourceId, kind: 'forked', subjectId: child.id, actorId });
  }
}

/**
 * Forks any public blueprint, or a private one the viewer owns (a team member who may only read it gets
 * 403; anyone else 404): a copy of the current plan only (no history, stars, reviews,
 * executions or stats), with its own id and slug, owned by the viewer, linked to the source.
 */
export async function forkBlueprint(ctx: RequestContext, sourceId: string): Promise<Blueprint> {
  const viewer = requireViewer(ctx);
  // Read and check access before the transaction: reads on ctx.em inside it would need a second pool
  // connection while the transaction holds one, and enough concurrent forks would then starve the pool.
  const source = await getBlueprint(ctx, sourceId);
  // A private blueprint shared through a team may be read by its members, but only its owner may copy it out.
  if (source.visibility === Visibility.PRIVATE && !isOwner(viewer, guardOf(source))) throw forbidden('Only the owner may fork a private blueprint');
  const fork = await ctx.em.transactional(async (tx) => {
    const fork = new Blueprint({
      slug: await freeSlug(tx, 'blueprint', source.name, 'fork'),
      name: source.name,
      visibility: source.visibility,
      owner: tx.getReference(Principal, viewer.principalId, { wrapped: true }),
      plan: structuredClone(source.plan),
    });
    fork.description = source.description;
    fork.tags = [...source.tags];
    const parentVersion: Array<{ number: number | null }> = await tx.execute('select max(number) as number from blueprint_version where blueprint_id = ?', [
      source.id,
    ]);
    tx.persist(fork);
    recordFirstVersion(tx, fork, viewer.principalId, 'fork', {
      forked_from: source.id,
      parent_version: parentVersion[0]?.number ?? null,
    });
    await recordForks(tx, ctx, source.id, [fork], viewer.principalId);
    return fork;
  });
  ctx.loaders.clear();
  return fork;
}
