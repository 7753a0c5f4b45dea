import DataLoader from 'dataloader';
import { readableSql } from '../blueprints/access';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { fullProjection, type BlueprintProjection } from '../blueprints/blueprint.projection';
import { readBlueprint } from '../blueprints/blueprint.service';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import { LineageKind } from './lineage-link.entity';

export interface ForkPage {
  items: BlueprintView[];
  total: number;
}

export interface Relative {
  kind: LineageKind;
  blueprint: BlueprintView;
}

/**
 * Public forks of many parents for one page request: one SQL statement for any number of parents
 * (a lateral page per parent on the (forked_from_id, created_at, id) index, plus its count).
 */
function forkPageLoader(ctx: RequestContext, page: PageRequest, projection: BlueprintProjection): DataLoader<string, ForkPage> {
  return ctx.loaders.get(
    `lineage.forkPage:${page.limit}:${page.offset}:${projection.key}`,
    () =>
      new DataLoader<string, ForkPage>(async (parentIds) => {
        const rows: Array<Record<string, unknown> & { parent_id: string; total: string | number }> = await ctx.em.execute(
          `select p.parent_id, c.total, ${projection.sql('x')}
           from unnest(?::uuid[]) as p(parent_id)
           cross join lateral (select count(*) as total from blueprint f
                                where f.forked_from_id = p.parent_id and f.visibility = 'public') c
           left join lateral (select ${projection.sql('f')} from blueprint f
                               where f.forked_from_id = p.parent_id and f.visibility = 'public'
                               order by f.created_at, f.id offset ? limit ?) x on true`,
          [`{${parentIds.join(',')}}`, page.offset, page.limit],
        );
        const pages = new Map<string, ForkPage>(parentIds.map((id) => [id, { items: [], total: 0 }]));
        for (const row of rows) {
          const entry = pages.get(row.parent_id)!;
          entry.total = Number(row.total);
          if (row.id !== null) entry.items.push(projection.map(row));
        }
        return parentIds.map((id) => pages.get(id)!);
      }),
  );
}

/** Count of public forks of many parents: one grouped statement. */
function forkCountLoader(ctx: RequestContext): DataLoader<string, number> {
  return ctx.loaders.get(
    'lineage.forkCount',
    () =>
      new DataLoader<string, number>(async (parentIds) => {
        const rows: Array<{ forked_from_id: string; total: string }> = await ctx.em.execute(
          `select forked_from_id, count(*) as total from blueprint
          where forked_from_id = any(?::uuid[]) and visibility = 'public' group by forked_from_id`,
          [`{${parentIds.join(',')}}`],
        );
        const counts = new Map(rows.map((r) => [r.forked_from_id, Number(r.total)]));
        return parentIds.map((id) => counts.get(id) ?? 0);
      }),
  );
}

/** Public forks of a blueprint, oldest first, with the columns of `projection` (default: all). */
export function forksOf(ctx: RequestContext, parentId: string, page: PageRequest, projection = fullProjection): Promise<ForkPage> {
  return forkPageLoader(ctx, page, projection).load(parentId);
}

export function forkCountOf(ctx: RequestContext, parentId: string): Promise<number> {
  return forkCountLoader(ctx).load(parentId);
}

function relativesLoader(ctx: RequestContext, direction: 'parents' | 'children', projection: BlueprintProjection): DataLoader<string, Relative[]> {
  const [self, other] = direction === 'parents' ? ['child_id', 'parent_id'] : ['parent_id', 'child_id'];
  return ctx.loaders.get(
    `lineage.${direction}:${projection.key}`,
    () =>
      new DataLoader<string, Relative[]>(async (ids) => {
        const readable = readableSql('b', ctx.viewer);
        const rows: Array<Record<string, unknown> & { key_id: string; link_kind: LineageKind }> = await ctx.em.execute(
          `select l.${self} as key_id, l.kind as link_kind, ${projection.sql('b')}
           from lineage_link l join blueprint b on b.id = l.${other}
          where l.${self} = any(?::uuid[]) and ${readable.sql}
          order by l.created_at, l.id`,
          [`{${ids.join(',')}}`, ...readable.params],
        );
        const byId = new Map<string, Relative[]>(ids.map((id) => [id, []]));
        for (const row of rows) byId.get(row.key_id)!.push({ kind: row.link_kind, blueprint: projection.map(row) });
        return ids.map((id) => byId.get(id)!);
      }),
  );
}

/** Parents the viewer may see: what a blueprint was forked from or bred from. */
export function parentsOf(ctx: RequestContext, id: string, projection = fullProjection): Promise<Relative[]> {
  return relativesLoader(ctx, 'parents', projection).load(id);
}

/** Children the viewer may see: forks and breed offspring. */
export function childrenOf(ctx: RequestContext, id: string, projection = fullProjection): Promise<Relative[]> {
  return relativesLoader(ctx, 'children', projection).load(id);
}

export type LineageDirection = 'UP' | 'DOWN' | 'BOTH';

export interface LineageGraph {
  root: BlueprintView;
  nodes: Array<{ blueprint: BlueprintView; depth: number }>;
  edges: Array<{ parentId: string; childId: string; kind: LineageKind }>;
}

/**
 * The ancestry graph around a blueprint, up to `depth` links away. Traversal never passes through a
 * blueprint the viewer may not see, so hidden blueprints and what lies only behind them stay hidden.
 */
export async function lineageGraph(
  ctx: RequestContext,
  idOrSlug: string,
  direction: LineageDirection,
  depth: number,
  projection = fullProjection,
): Promise<LineageGraph> {
  const max = ctx.config.limits.lineageDepthMax;
  if (!Number.isInteger(depth) || depth < 1 || depth > max) throw invalid('depth', `must be between 1 and ${max}`);
  const root = await readBlueprint(ctx, idOrSlug, projection);
  const readable = readableSql('b', ctx.viewer);
  const step = (from: string, to: string) =>
    `select l.${to}, w.depth + 1 from walk w join lineage_link l on l.${from} = w.id
       join blueprint b on b.id = l.${to} where w.depth < ? and ${readable.sql}`;
  const arms: string[] = [];
  const params: unknown[] = [root.id];
  if (direction !== 'DOWN') {
    arms.push(step('child_id', 'parent_id'));
    params.push(depth, ...readable.params);
  }
  if (direction !== 'UP') {
    arms.push(step('parent_id', 'child_id'));
    params.push(depth, ...readable.params);
  }
  // BOTH walks up and down from the root only (ancestors and descendants), not sideways to cousins.
  const sql =
    direction === 'BOTH'
      ? `with recursive up(id, depth) as (select ?::uuid, 0 union ${step('child_id', 'parent_id').replace(/walk w/g, 'up w')}),
                down(id, depth) as (select ?::uuid, 0 union ${step('parent_id', 'child_id').replace(/walk w/g, 'down w')}),
                reached as (select id, min(depth) as depth from (select * from up union all select * from down) u group by id)
         select r.depth, ${projection.sql('b')} from reached r join blueprint b on b.id = r.id order by r.depth, b.created_at, b.id`
      : `with recursive walk(id, depth) as (select ?::uuid, 0 union ${arms[0]}),
                reached as (select id, min(depth) as depth from walk group by id)
         select r.depth, ${projection.sql('b')} from reached r join blueprint b on b.id = r.id order by r.depth, b.created_at, b.id`;
  const finalParams = direction === 'BOTH' ? [root.id, depth, ...readable.params, root.id, depth, ...readable.params] : params;
  const rows: Array<Record<string, unknown> & { depth: number }> = await ctx.em.execute(sql, finalParams);
  const nodes = rows.map((row) => ({ blueprint: projection.map(row), depth: Number(row.depth) }));
  const ids = nodes.map((n) => n.blueprint.id);
  const links: Array<{ parent_id: string; child_id: string; kind: LineageKind }> = await ctx.em.execute(
    `select parent_id, child_id, kind from lineage_link where parent_id = any(?::uuid[]) and child_id = any(?::uuid[]) order by created_at, id`,
    [`{${ids.join(',')}}`, `{${ids.join(',')}}`],
  );
  return { root, nodes, edges: links.map((l) => ({ parentId: l.parent_id, childId: l.child_id, kind: l.kind })) };
}
