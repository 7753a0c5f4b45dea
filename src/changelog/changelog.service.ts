import DataLoader from 'dataloader';
import { requireViewer } from '../auth/auth.service';
import { getBlueprint, getOwnedBlueprint } from '../blueprints/blueprint.service';
import { isUuid } from '../platform/sql/ids';
import type { Limits } from '../platform/config';
import type { RequestContext } from '../platform/context';
import { notFound } from '../platform/errors';
import { assertValid, validatorFor } from '../platform/json-schema';
import type { Page, PageRequest } from '../platform/pagination';
import { ChangelogEntry } from './changelog-entry.entity';
import { changelogInputs } from './changelog.contract';

const entryColumns = 'e.id, e.blueprint_id, e.author_id, e.title, e.body, e.created_at, e.updated_at';

export interface EntryFields {
  title?: string;
  body?: string;
}

const entryBody = (limits: Limits, mode: 'publish' | 'update') => validatorFor(changelogInputs(limits)[mode]);

/**
 * `{title, body}` from a request body. Publishing needs both (the body may be empty); an update needs
 * at least one. Titles are trimmed and must not be blank; unknown fields are rejected.
 */
export function parseEntryFields(input: unknown, limits: Limits, mode: 'publish' | 'update'): EntryFields {
  const fields = assertValid<EntryFields>(entryBody(limits, mode), input ?? null, '');
  return fields.title === undefined ? fields : { ...fields, title: fields.title.trim() };
}

/**
 * Publishes an entry on a blueprint the caller owns. It sends no broadcast (the owner sends one when
 * forkers should hear about it) but is `blueprintActivity` of kind CHANGELOG.
 */
export async function publishChangelogEntry(ctx: RequestContext, blueprintId: string, input: unknown): Promise<ChangelogEntry> {
  const bp = await getOwnedBlueprint(ctx, blueprintId, 'publish changelog entries');
  const fields = parseEntryFields(input, ctx.config.limits, 'publish');
  const viewer = requireViewer(ctx);
  const entry = await ctx.em.transactional(async (tx) => {
    const rows: Array<Record<string, unknown>> = await tx.execute(
      `insert into changelog_entry as e (id, blueprint_id, author_id, title, body) values (gen_random_uuid(), ?, ?, ?, ?)
       returning ${entryColumns}`,
      [bp.id, viewer.principalId, fields.title, fields.body],
    );
    const entry = tx.map(ChangelogEntry, rows[0]!);
    await ctx.events.publish(tx, 'blueprint.activity', { blueprintId: bp.id, kind: 'changelog', subjectId: entry.id, actorId: viewer.principalId });
    return entry;
  });
  ctx.loaders.clear();
  return entry;
}

/** Changes the title and/or body of an entry of a blueprint the caller owns. */
export async function updateChangelogEntry(ctx: RequestContext, blueprintId: string | null, entryId: string, input: unknown): Promise<ChangelogEntry> {
  requireViewer(ctx);
  let ownerBlueprintId = blueprintId;
  if (ownerBlueprintId === null) {
    // GraphQL names only the entry; an entry of a blueprint the caller may not see does not exist for them.
    const found = isUuid(entryId) ? await changelogEntryById(ctx, entryId.toLowerCase()) : null;
    if (!found) throw notFound('changelog entry', entryId);
    ownerBlueprintId = found.blueprint.id;
    try {
      await getBlueprint(ctx, ownerBlueprintId);
    } catch {
      throw notFound('changelog entry', entryId);
    }
  }
  const bp = await getOwnedBlueprint(ctx, ownerBlueprintId, 'edit changelog entries');
  const fields = parseEntryFields(input, ctx.config.limits, 'update');
  if (!isUuid(entryId)) throw notFound('changelog entry', entryId);
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `update changelog_entry as e set title = coalesce(?, e.title), body = coalesce(?, e.body), updated_at = clock_timestamp()
      where e.id = ? and e.blueprint_id = ? returning ${entryColumns}`,
    [fields.title ?? null, fields.body ?? null, entryId.toLowerCase(), bp.id],
  );
  if (rows.length === 0) throw notFound('changelog entry', entryId);
  ctx.loaders.clear();
  return ctx.em.map(ChangelogEntry, rows[0]!);
}

/**
 * One page of the changelogs of many blueprints (newest first): one statement for any number of
 * blueprints, a lateral page per blueprint on the (blueprint_id, created_at desc, id desc) index.
 */
function changelogPageLoader(ctx: RequestContext, page: PageRequest): DataLoader<string, Page<ChangelogEntry>> {
  return ctx.loaders.get(
    `changelog.page:${page.limit}:${page.offset}`,
    () =>
      new DataLoader<string, Page<ChangelogEntry>>(async (ids) => {
        const rows: Array<Record<string, unknown> & { key_id: string; total: string }> = await ctx.em.execute(
          `select p.key_id, c.total, x.* from unnest(?::uuid[]) as p(key_id)
           cross join lateral (select count(*) as total from changelog_entry e where e.blueprint_id = p.key_id) c
           left join lateral (select ${entryColumns} from changelog_entry e where e.blueprint_id = p.key_id
                               order by e.created_at desc, e.id desc offset ? limit ?) x on true`,
          [`{${ids.join(',')}}`, page.offset, page.limit],
        );
        const pages = new Map<string, Page<ChangelogEntry>>(ids.map((id) => [id, { items: [], total: 0, limit: page.limit, offset: page.offset }]));
        for (const row of rows) {
          const entry = pages.get(row.key_id)!;
          entry.total = Number(row.total);
          if (row.id !== null) entry.items.push(ctx.em.map(ChangelogEntry, row));
        }
        return ids.map((id) => pages.get(id)!);
      }),
  );
}

/** A readable blueprint's changelog, newest first; public blueprints need no token. */
export async function listChangelog(ctx: RequestContext, blueprintId: string, page: PageRequest): Promise<Page<ChangelogEntry>> {
  const bp = await getBlueprint(ctx, blueprintId);
  return changelogOf(ctx, bp.id, page);
}

/** The changelog page of a blueprint the caller already may read (batched across blueprints). */
export function changelogOf(ctx: RequestContext, blueprintId: string, page: PageRequest): Promise<Page<ChangelogEntry>> {
  return changelogPageLoader(ctx, page).load(blueprintId);
}

/** Entries by id, batched; no access check (callers check the entry's blueprint). */
export function changelogEntryById(ctx: RequestContext, id: string): Promise<ChangelogEntry | null> {
  const loader = ctx.loaders.get(
    'changelog.byId',
    () =>
      new DataLoader<string, ChangelogEntry | null>(async (ids) => {
        const rows: Array<Record<string, unknown> & { id: string }> = await ctx.em.execute(
          `select ${entryColumns} from changelog_entry e where e.id = any(?::uuid[])`,
          [`{${ids.join(',')}}`],
        );
        const byId = new Map(rows.map((r) => [r.id, ctx.em.map(ChangelogEntry, r)]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
  return loader.load(id);
}
