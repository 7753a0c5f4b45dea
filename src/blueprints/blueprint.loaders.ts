import DataLoader from 'dataloader';
import type { RequestContext } from '../platform/context';
import { byKeys } from '../platform/loaders';
import { Blueprint } from './blueprint.entity';

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
