/**
 * Where a proposal's source branched off its target: the lineage path between them and the merge base
 * (the target's plan the source's line started from). Computed once, when a proposal opens.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { versionSnapshot } from '../blueprints/blueprint-version.service';
import type { Plan } from '../plans/plan';

/**
 * The shortest lineage path from `sourceId` up to `targetId` through fork and breed links, as
 * `[source, parent, ..., target]`, or null when the source does not descend from the target within
 * `maxDepth` links. Breadth first, one statement per level, each blueprint visited once.
 */
export async function lineagePath(em: EntityManager, sourceId: string, targetId: string, maxDepth: number): Promise<string[] | null> {
  const cameFrom = new Map<string, string | null>([[sourceId, null]]);
  let frontier = [sourceId];
  for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
    const rows: Array<{ parent_id: string; child_id: string }> = await em.execute(
      'select parent_id, child_id from lineage_link where child_id = any(?::uuid[]) order by created_at, parent_id',
      [`{${frontier.join(',')}}`],
    );
    const next: string[] = [];
    for (const r of rows) {
      if (cameFrom.has(r.parent_id)) continue;
      cameFrom.set(r.parent_id, r.child_id);
      if (r.parent_id === targetId) {
        const path: string[] = [];
        for (let at: string | null = targetId; at !== null; at = cameFrom.get(at) ?? null) path.unshift(at);
        return path;
      }
      next.push(r.parent_id);
    }
    frontier = next;
  }
  return null;
}

/**
 * The parent's version a child's line holds, given that the child is at most at version `childLimit`:
 * for a fork, the parent version its newest fork or upstream_merge record (up to that limit) names; for
 * any other child (a breed or another NEW tool's output), the parent's newest version written before the
 * child was born. Null when the parent has no versions.
 */
async function parentVersionHeld(em: EntityManager, childId: string, parentId: string, childLimit: number | null): Promise<number | null> {
  const rows: Array<{ v: number | null }> = await em.execute(
    `select coalesce(
       (select coalesce((cv.changes->>'upstream_version')::int, (cv.changes->>'parent_version')::int)
          from blueprint_version cv join blueprint c on c.id = cv.blueprint_id
         where cv.blueprint_id = ? and c.forked_from_id = ? and cv.cause in ('fork', 'upstream_merge')
           and (?::int is null or cv.number <= ?::int)
           and coalesce(cv.changes->>'upstream_version', cv.changes->>'parent_version') is not null
         order by cv.number desc limit 1),
       (select max(pv.number) from blueprint_version pv
         where pv.blueprint_id = ?
           and pv.created_at <= (select min(created_at) from blueprint_version where blueprint_id = ?))
     ) as v`,
    [childId, parentId, childLimit, childLimit, parentId, childId],
  );
  return rows[0]?.v ?? null;
}

export interface MergeBase {
  /** The target's version the base is (or, after an earlier merge from this source, the merge's version). */
  version: number | null;
  plan: Plan;
}

/**
 * The merge base of a proposal from `path[0]` (the source) to `path[path.length - 1]` (the target): each link
 * of the path, from the source up, names the parent version the child's line started from. When an
 * earlier proposal from the same source was merged into the target later than that, the source plan that
 * merge took in is the base instead (what the target already has of the source is not proposed again).
 */
export async function mergeBaseOf(em: EntityManager, path: readonly string[], fallback: Plan): Promise<MergeBase> {
  let limit: number | null = null;
  for (let i = 0; i + 1 < path.length; i++) limit = await parentVersionHeld(em, path[i]!, path[i + 1]!, limit);
  const sourceId = path[0]!;
  const targetId = path[path.length - 1]!;
  const merged: Array<{ merge_version: number | null; merged_source_plan: Plan }> = await em.execute(
    `select merge_version, merged_source_plan from proposal
      where target_id = ? and source_id = ? and state = 'merged' and merged_source_plan is not null
      order by merged_at desc limit 1`,
    [targetId, sourceId],
  );
  const last = merged[0];
  if (last && (limit === null || (last.merge_version ?? 0) >= limit)) return { version: last.merge_version ?? limit, plan: last.merged_source_plan };
  const snapshot = limit === null ? null : await versionSnapshot(em, targetId, limit);
  return { version: snapshot ? limit : null, plan: snapshot ?? fallback };
}
