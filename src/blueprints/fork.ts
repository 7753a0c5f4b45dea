import { ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LineageKind, LineageLink } from '../lineage/lineage-link.entity';
import type { RequestContext } from '../platform/context';
import { notFound } from '../platform/errors';
import { Blueprint } from './blueprint.entity';

/**
 * The bookkeeping of a fork, wherever one is made (the fork endpoint, a one-source NEW tool), inside the
 * caller's transaction: the source's forks count, each child's `forked_from` and lineage link, and one
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
  const counted = await tx.execute('update blueprint set forks_count = forks_count + ? where id = ? returning id', [children.length, sourceId]);
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
