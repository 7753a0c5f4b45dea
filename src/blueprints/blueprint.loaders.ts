import DataLoader from 'dataloader';
import type { RequestContext } from '../platform/context';
import type { SqlFragment } from '../platform/sql/database';
import { readWithViewerCheck } from '../platform/graphql/deferred-viewer';
import { byKeys } from '../platform/loaders';
import { Blueprint } from './blueprint.entity';
import type { BlueprintView } from './blueprint.view';
import type { BlueprintProjection } from './blueprint.projection';
import { amongKeys } from '../platform/sql/pg-array';

/** Batched reads of blueprints for one request: any number of loads in one tick is one SQL statement. */
export function blueprintLoaders(ctx: RequestContext) {
  const { em, loaders } = ctx;
  return {
    byId: loaders.get(
      'blueprint.byId',
      () => new DataLoader<string, Blueprint | null>(async (ids) => byKeys(ids, await em.find(Blueprint, { id: { $in: [...ids] } }), (b) => b.id)),
    ),
    bySlug: loaders.get(
      'blueprint.bySlug',
      () => new DataLoader<string, Blueprint | null>(async (slugs) => byKeys(slugs, await em.find(Blueprint, { slug: { $in: [...slugs] } }), (b) => b.slug)),
    ),
    starredByViewer: loaders.get(
      'blueprint.starredByViewer',
      () =>
        new DataLoader<string, boolean>(async (ids) => {
          const rows: Array<{ blueprint_id: string }> = await em.execute(
            `select blueprint_id from star where principal_id = ? and blueprint_id in (${ids.map(() => '?').join(',')})`,
            [ctx.viewer?.principalId, ...ids],
          );
          const starred = new Set(rows.map((r) => r.blueprint_id));
          return ids.map((id) => starred.has(id));
        }),
    ),
  };
}

/** The value of the extra SQL column a row was read with (see `blueprintRowLoader`). */
const extras = new WeakMap<object, unknown>();

/** What `extra` answered for this row, if it was read with one. */
export function rowExtra(row: object): unknown {
  return extras.get(row);
}

const rowTexts = new WeakMap<BlueprintProjection, Map<string, string>>();

/**
 * The statement text of a row read without an extra column: kept per projection and key condition (a
 * few of each, spelled in code), so every request sends the same string object, whose hash the
 * prepared-statement and carried-text maps then reuse instead of hashing a new string of it.
 */
function rowSql(projection: BlueprintProjection, among: string): string {
  let texts = rowTexts.get(projection);
  if (!texts) rowTexts.set(projection, (texts = new Map()));
  let text = texts.get(among);
  if (text === undefined) texts.set(among, (text = `select ${projection.sql('b')} from blueprint b where ${among}`));
  return text;
}

/**
 * Batched reads of plain blueprint rows (the read path, blueprint.projection.ts): only the projection's
 * columns, no managed entity. One loader per projection, key column and extra column, so selections never
 * share a batch. `extra`, an SQL expression over the row's alias `b` with its parameters, rides along in
 * the same statement (another area's data for the same answer, e.g. a whole fork tree as JSON);
 * `rowExtra(row)` reads it. The statement is prepared once per shape (`executeShaped`).
 */
export function blueprintRowLoader(
  ctx: RequestContext,
  projection: BlueprintProjection,
  by: 'id' | 'slug',
  extra?: SqlFragment,
): DataLoader<string, BlueprintView | null> {
  return ctx.loaders.get(
    `blueprint.row.${by}:${projection.key}${extra ? `:${extra.sql}:${extra.params.join(',')}` : ''}`,
    () =>
      new DataLoader<string, BlueprintView | null>(async (keys) => {
        // The request's token lookup rides in this statement when it is the request's first (deferred-viewer.ts).
        const among = amongKeys(`b.${by}`, keys, by === 'id' ? 'uuid' : 'text');
        const rows = await readWithViewerCheck<Record<string, unknown>>(ctx, {
          sql: extra ? `select ${projection.sql('b')}, ${extra.sql} as extra__ from blueprint b where ${among.sql}` : rowSql(projection, among.sql),
          params: [...(extra?.params ?? []), ...among.params],
          // One key of a unique column: the lookup rides as a column of the row (deferred-viewer.ts).
          atMostOneRow: keys.length === 1,
        });
        const mapped = rows.map((r) => {
          const row = projection.map(r);
          if (extra) extras.set(row, r.extra__);
          return row;
        });
        return byKeys(keys, mapped, (b) => (by === 'id' ? b.id : b.slug));
      }),
  );
}
