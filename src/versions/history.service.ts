/**
 * Reading version history: owner only (the API's rule), paged newest first, batched across blueprints.
 */
import type { BlueprintView } from '../blueprints/blueprint.view';
import DataLoader from 'dataloader';
import { assertOwner } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { getOwnedBlueprint } from '../blueprints/blueprint.service';
import type { RequestContext } from '../platform/context';
import type { PageRequest } from '../platform/pagination';

/** A version as lists show it: everything but the (possibly large) plan snapshot. */
export interface VersionEntry {
  id: string;
  number: number;
  createdAt: Date;
  authorId: string;
  cause: string;
  changes: Record<string, unknown>;
}

export interface VersionPage {
  items: VersionEntry[];
  total: number;
}

const historyAction = 'read the version history of this blueprint';

/**
 * Version history is the owner's alone (the API's rule): anonymous callers get 401, callers who may
 * not see the blueprint 404, and callers who may see it but do not own it 403.
 */
export function assertHistoryReader(ctx: RequestContext, bp: BlueprintView): void {
  assertOwner(ctx, bp, historyAction);
}

/** The blueprint (by id or slug) whose history the viewer asks for, after the owner-only check. */
export function historyOf(ctx: RequestContext, idOrSlug: string): Promise<Blueprint> {
  return getOwnedBlueprint(ctx, idOrSlug, historyAction);
}

/**
 * Versions of many blueprints for one page request, newest first: one statement for any number of
 * blueprints (a lateral page per blueprint on the (blueprint_id, number) key, plus its count).
 */
function versionPageLoader(ctx: RequestContext, page: PageRequest): DataLoader<string, VersionPage> {
  return ctx.loaders.get(
    `versions.page:${page.limit}:${page.offset}`,
    () =>
      new DataLoader<string, VersionPage>(async (ids) => {
        const rows: Array<{
          bp_id: string;
          total: string | number;
          id: string | null;
          number: number;
          author_id: string;
          cause: string;
          changes: Record<string, unknown>;
          created_at: Date | string;
        }> = await ctx.em.execute(
          `select p.bp_id, c.total, v.id, v.number, v.author_id, v.cause, v.changes, v.created_at
           from unnest(?::uuid[]) as p(bp_id)
           cross join lateral (select count(*) as total from blueprint_version where blueprint_id = p.bp_id) c
           left join lateral (select id, number, author_id, cause, changes, created_at from blueprint_version
                               where blueprint_id = p.bp_id order by number desc offset ? limit ?) v on true
          order by p.bp_id, v.number desc`,
          [`{${ids.join(',')}}`, page.offset, page.limit],
        );
        const pages = new Map<string, VersionPage>(ids.map((id) => [id, { items: [], total: 0 }]));
        for (const row of rows) {
          const entry = pages.get(row.bp_id)!;
          entry.total = Number(row.total);
          if (row.id === null) continue;
          entry.items.push({
            id: row.id,
            number: Number(row.number),
            createdAt: new Date(row.created_at),
            authorId: row.author_id,
            cause: row.cause,
            changes: row.changes,
          });
        }
        return ids.map((id) => pages.get(id)!);
      }),
  );
}

/** One page of a blueprint's versions, newest first; the caller has passed {@link assertHistoryReader}. */
export function versionsOf(ctx: RequestContext, blueprintId: string, page: PageRequest): Promise<VersionPage> {
  return versionPageLoader(ctx, page).load(blueprintId);
}
