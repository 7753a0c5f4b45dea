import DataLoader from 'dataloader';
import { canEditWith, canRead, canReadWith, isOwner, viewerTeamRoles, type Guarded } from '../blueprints/access';
import { Blueprint, Visibility, ratingAverageOf, successRateOf } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import type { RequestContext } from '../platform/context';
import { executeShaped } from '../platform/database';
import { textArrayLiteral } from '../platform/pg-array';
import { notFound } from '../platform/errors';
import { groupByKeys } from '../platform/loaders';
import { EdgeType } from './architecture.entity';
import type { Point } from './layout';
import type { KindCount } from './zoom';

/** An architecture row as reads use it (nodes and edges are assembled per viewer, see `nodesOf`/`edgesOf`). */
export interface ArchitectureRecord {
  id: string;
  slug: string;
  name: string;
  description: string;
  visibility: Visibility;
  ownerId: string;
  teamId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The blueprint card: what the ecosystem view shows of a node. */
export interface BlueprintCard {
  id: string;
  slug: string;
  name: string;
  stars: number;
  moduleCount: number;
  stepCount: number;
  successRate: number | null;
  reviewCount: number;
  ratingAverage: number | null;
}

/**
 * A node as one viewer sees it. A node whose blueprint the viewer may not read is redacted: no card, no
 * composition, and (on the wire) no blueprint id.
 */
export interface NodeView {
  id: string;
  architectureId: string;
  blueprintId: string;
  position: Point;
  card: BlueprintCard | null;
  composition: KindCount[];
  redacted: boolean;
}

/** The card of a loaded blueprint. */
export function cardOf(bp: Blueprint): BlueprintCard {
  return {
    id: bp.id,
    slug: bp.slug,
    name: bp.name,
    stars: bp.starsCount,
    moduleCount: bp.moduleCount,
    stepCount: bp.stepCount,
    successRate: bp.successRate,
    reviewCount: bp.reviewCount,
    ratingAverage: bp.ratingAverage,
  };
}

type NodeRow = {
  id: string;
  architecture_id: string;
  blueprint_id: string;
  position_x: number;
  position_y: number;
  slug: string;
  name: string;
  visibility: Visibility;
  owner_id: string;
  team_id: string | null;
  stars_count: number;
  module_count: number;
  step_count: number;
  executions_started: number;
  executions_completed: number;
  executions_failed: number;
  executions_abandoned: number;
  review_count: number;
  rating_sum: number;
  composition: KindCount[];
};

export interface EdgeView {
  id: string;
  sourceNodeId: string;
  targetNodeId: string;
  edgeType: EdgeType;
  label: string | null;
  /** True for lineage edges, which are derived from ancestry on every read. */
  computed: boolean;
}

export const architectureColumns = 'a.id, a.slug, a.name, a.description, a.visibility, a.owner_id, a.team_id, a.created_at, a.updated_at';

export type ArchitectureRow = {
  id: string;
  slug: string;
  name: string;
  description: string;
  visibility: Visibility;
  owner_id: string;
  team_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
};

export function toRecord(row: ArchitectureRow): ArchitectureRecord {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    ownerId: row.owner_id,
    teamId: row.team_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function guardOfArchitecture(a: ArchitectureRecord): Guarded {
  return { visibility: a.visibility, ownerId: a.ownerId, teamId: a.teamId };
}

/** The deterministic id of a computed lineage edge between two nodes. */
export function lineageEdgeId(parentNodeId: string, childNodeId: string): string {
  return `lineage:${parentNodeId}:${childNodeId}`;
}

export function isLineageEdgeId(id: string): boolean {
  return id.startsWith('lineage:');
}

function loaders(ctx: RequestContext) {
  const { em } = ctx;
  return {
    bySlug: ctx.loaders.get(
      'architecture.bySlug',
      () =>
        new DataLoader<string, ArchitectureRecord | null>(async (slugs) => {
          const rows = await executeShaped<ArchitectureRow>(em, {
            sql: `select ${architectureColumns} from architecture a where a.slug = any(?::text[])`,
            params: [textArrayLiteral(slugs)],
          });
          const bySlug = new Map(rows.map((r) => [r.slug, toRecord(r)]));
          return slugs.map((s) => bySlug.get(s) ?? null);
        }),
    ),
    // Nodes with the card and module composition of their blueprints, computed in SQL so that the
    // ecosystem view never loads (or hydrates) whole plans: one statement for any number of nodes.
    nodeRows: ctx.loaders.get(
      'architecture.nodeRows',
      () =>
        new DataLoader<string, NodeRow[]>(async (ids) => {
          const rows = await executeShaped<NodeRow>(em, {
            sql: `select n.id, n.architecture_id, n.blueprint_id, n.position_x, n.position_y,
                  b.slug, b.name, b.visibility, b.owner_id, b.team_id, b.stars_count, b.module_count, b.step_count,
                  b.executions_started, b.executions_completed, b.executions_failed, b.executions_abandoned, b.review_count, b.rating_sum,
                  (select coalesce(jsonb_agg(jsonb_build_object('kind', k.kind, 'count', k.n) order by k.n desc, k.kind collate "C"), '[]'::jsonb)
                     from (select m->>'kind' as kind, count(*)::int as n from jsonb_array_elements(b.plan->'modules') m group by 1) k) as composition
             from architecture_node n join blueprint b on b.id = n.blueprint_id
            where n.architecture_id = any(?::uuid[]) order by n.created_at, n.id`,
            params: [`{${ids.join(',')}}`],
          });
          return groupByKeys(ids, rows, (r) => r.architecture_id);
        }),
    ),
    manualEdges: ctx.loaders.get(
      'architecture.manualEdges',
      () =>
        new DataLoader<string, EdgeView[]>(async (ids) => {
          const rows = await executeShaped<{
            id: string;
            architecture_id: string;
            source_node_id: string;
            target_node_id: string;
            edge_type: EdgeType;
            label: string | null;
          }>(em, {
            sql: `select id, architecture_id, source_node_id, target_node_id, edge_type, label from architecture_edge
            where architecture_id = any(?::uuid[]) order by created_at, id`,
            params: [`{${ids.join(',')}}`],
          });
          return groupByKeys(ids, rows, (r) => r.architecture_id).map((list) =>
            list.map((r) => ({
              id: r.id,
              sourceNodeId: r.source_node_id,
              targetNodeId: r.target_node_id,
              edgeType: r.edge_type,
              label: r.label,
              computed: false,
            })),
          );
        }),
    ),
    // Lineage links whose parent and child both stand on the same architecture: one join for any number of them.
    lineageEdges: ctx.loaders.get(
      'architecture.lineageEdges',
      () =>
        new DataLoader<string, EdgeView[]>(async (ids) => {
          const rows = await executeShaped<{ architecture_id: string; source_node_id: string; target_node_id: string; kind: 'fork' | 'breed' }>(em, {
            sql: `select pn.architecture_id, pn.id as source_node_id, cn.id as target_node_id, l.kind
             from architecture_node pn
             join lineage_link l on l.parent_id = pn.blueprint_id
             join architecture_node cn on cn.architecture_id = pn.architecture_id and cn.blueprint_id = l.child_id
            where pn.architecture_id = any(?::uuid[])`,
            params: [`{${ids.join(',')}}`],
          });
          return groupByKeys(ids, rows, (r) => r.architecture_id).map((list) =>
            list
              .map((r) => ({
                id: lineageEdgeId(r.source_node_id, r.target_node_id),
                sourceNodeId: r.source_node_id,
                targetNodeId: r.target_node_id,
                edgeType: r.kind === 'breed' ? EdgeType.LINEAGE_BREED : EdgeType.LINEAGE_FORK,
                label: null,
                computed: true,
              }))
              .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
          );
        }),
    ),
  };
}

/** The architecture with this slug, whoever may see it (access is the caller's business). */
export function findArchitecture(ctx: RequestContext, slug: string): Promise<ArchitectureRecord | null> {
  return loaders(ctx).bySlug.load(slug);
}

export function canReadArchitecture(ctx: RequestContext, arch: ArchitectureRecord): Promise<boolean> {
  return canRead(ctx, guardOfArchitecture(arch));
}

export async function canEditArchitecture(ctx: RequestContext, arch: ArchitectureRecord): Promise<boolean> {
  return canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOfArchitecture(arch));
}

/** An architecture the viewer may read; 404 when it does not exist or is private to others. */
export async function getArchitecture(ctx: RequestContext, slug: string): Promise<ArchitectureRecord> {
  const arch = await findArchitecture(ctx, slug);
  if (!arch || !(await canReadArchitecture(ctx, arch))) throw notFound('architecture', slug);
  return arch;
}

/** The nodes in the order they were added, with cards; one batched statement for any number of nodes and architectures. */
export async function nodesOf(ctx: RequestContext, arch: ArchitectureRecord): Promise<NodeView[]> {
  const rows = await loaders(ctx).nodeRows.load(arch.id);
  // The viewer's teams are looked up only when a node's blueprint is neither public nor the viewer's own.
  const guards = rows.map((r): Guarded => ({ visibility: r.visibility, ownerId: r.owner_id, teamId: r.team_id }));
  const roles = guards.some((g) => g.visibility !== Visibility.PUBLIC && !isOwner(ctx.viewer, g))
    ? await viewerTeamRoles(ctx)
    : (new Map() as Awaited<ReturnType<typeof viewerTeamRoles>>);
  return rows.map((r, i) => {
    const visible = canReadWith(ctx.viewer, roles, guards[i]!);
    // The blueprint's own rules, so the card's figures are the blueprint's by definition.
    const successRate = successRateOf({
      executionsCompleted: r.executions_completed,
      executionsFailed: r.executions_failed,
      executionsAbandoned: r.executions_abandoned,
    });
    const ratingAverage = ratingAverageOf(r.review_count, r.rating_sum);
    return {
      id: r.id,
      architectureId: r.architecture_id,
      blueprintId: r.blueprint_id,
      position: { x: Number(r.position_x), y: Number(r.position_y) },
      card: visible
        ? {
            id: r.blueprint_id,
            slug: r.slug,
            name: r.name,
            stars: r.stars_count,
            moduleCount: r.module_count,
            stepCount: r.step_count,
            successRate,
            reviewCount: r.review_count,
            ratingAverage,
          }
        : null,
      composition: visible ? r.composition : [],
      redacted: !visible,
    };
  });
}

/** The full blueprint behind a node (zoom levels 2 and 3), batched; null when the node is redacted. */
export async function nodeBlueprint(ctx: RequestContext, node: NodeView): Promise<Blueprint | null> {
  if (node.redacted) return null;
  return blueprintLoaders(ctx).byId.load(node.blueprintId);
}

/**
 * Manual edges in the order they were drawn, then the computed lineage edges between nodes the viewer
 * may read (an edge to a redacted node would tell how a hidden blueprint came about).
 */
export async function edgesOf(ctx: RequestContext, arch: ArchitectureRecord): Promise<EdgeView[]> {
  const l = loaders(ctx);
  const [manual, lineage, nodes] = await Promise.all([l.manualEdges.load(arch.id), l.lineageEdges.load(arch.id), nodesOf(ctx, arch)]);
  const visible = new Set(nodes.filter((n) => !n.redacted).map((n) => n.id));
  return [...manual, ...lineage.filter((e) => visible.has(e.sourceNodeId) && visible.has(e.targetNodeId))];
}

/** One architecture as one viewer sees it. */
export interface ArchitectureView {
  architecture: ArchitectureRecord;
  nodes: NodeView[];
  edges: EdgeView[];
}

export async function architectureView(ctx: RequestContext, arch: ArchitectureRecord): Promise<ArchitectureView> {
  const [nodes, edges] = await Promise.all([nodesOf(ctx, arch), edgesOf(ctx, arch)]);
  return { architecture: arch, nodes, edges };
}
