import type { BlueprintView } from '../blueprints/blueprint.view';
import DataLoader from 'dataloader';
import { canEditWith, canRead, canReadWith, isOwner, viewerTeamRoles, type Guarded } from '../blueprints/access';
import { Visibility, ratingAverageOf, successRateOf } from '../blueprints/blueprint.entity';
import { blueprintRowLoader } from '../blueprints/blueprint.loaders';
import { projectionFor } from '../blueprints/blueprint.projection';
import { planById } from '../blueprints/plan-read';
import type { Plan } from '../plans/plan';
import { chargeResponsePart } from '../platform/graphql/response-budget';
import type { GraphQLResolveInfo } from 'graphql';
import type { CardSource } from '../blueprints/blueprint.wire';
import { sqlEm, type RequestContext } from '../platform/context';
import { executeShaped } from '../platform/sql/database';
import { amongKeys, keysTable } from '../platform/sql/pg-array';
import { notFound } from '../platform/errors';
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
export interface BlueprintCard extends CardSource {
  /** Shown next to the name: forks often share their parent's name. */
  ownerId: string;
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
  /** The stored size of the blueprint's plan (what a zoom field that reads it costs the answer's budget); 0 when redacted. */
  planBytes: number;
}

/** The card of a loaded blueprint. */
export function cardOf(bp: BlueprintView): BlueprintCard {
  return {
    id: bp.id,
    slug: bp.slug,
    name: bp.name,
    starsCount: bp.starsCount,
    moduleCount: bp.moduleCount,
    stepCount: bp.stepCount,
    successRate: bp.successRate,
    reviewCount: bp.reviewCount,
    ratingAverage: bp.ratingAverage,
    ownerId: bp.owner.id,
  };
}

/** A node and its blueprint's card fields, as the graph statement builds them in JSON (short keys: 200 nodes a read). */
type NodeJson = {
  id: string;
  blueprint_id: string;
  x: number;
  y: number;
  slug: string;
  name: string;
  visibility: Visibility;
  owner_id: string;
  team_id: string | null;
  stars: number;
  modules: number;
  steps: number;
  completed: number;
  failed: number;
  abandoned: number;
  reviews: number;
  rating_sum: number;
  plan_bytes: number;
  composition: KindCount[];
};

type ManualEdgeJson = { id: string; source: string; target: string; edge_type: EdgeType; label: string | null };
type LineageEdgeJson = { source: string; target: string; kind: 'fork' | 'breed' };

/** What one architecture's graph statement answers: nodes, and the edges when they were asked for. */
interface GraphRows {
  nodes: NodeJson[];
  manual: EdgeView[];
  lineage: EdgeView[];
}

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

/**
 * What a read of an architecture also needs of its graph: nothing, its nodes, or its nodes and edges
 * (edges need the nodes: see `edgesOf`).
 */
export type GraphNeed = 'none' | 'nodes' | 'edges';

/** Which architecture, and whether its edges are needed too. */
interface GraphKey {
  id: string;
  edges: boolean;
}

const nodesColumn = `(select coalesce(json_agg(json_build_object(
      'id', n.id, 'blueprint_id', n.blueprint_id, 'x', n.position_x, 'y', n.position_y,
      'slug', b.slug, 'name', b.name, 'visibility', b.visibility, 'owner_id', b.owner_id, 'team_id', b.team_id,
      'stars', b.stars_count, 'modules', b.module_count, 'steps', b.step_count, 'completed', b.executions_completed,
      'failed', b.executions_failed, 'abandoned', b.executions_abandoned, 'reviews', b.review_count, 'rating_sum', b.rating_sum,
      'plan_bytes', b.plan_bytes, 'composition', (select coalesce(json_agg(json_build_object('kind', k.kind, 'count', k.n) order by k.n desc, k.kind collate "C"), '[]')
                        from (select m->>'kind' as kind, count(*)::int as n from jsonb_array_elements(b.plan->'modules') m group by 1) k))
      order by n.created_at, n.id), '[]')
    from architecture_node n join blueprint b on b.id = n.blueprint_id where n.architecture_id = a.id) as nodes`;

const edgesColumns = `(select coalesce(json_agg(json_build_object('id', e.id, 'source', e.source_node_id, 'target', e.target_node_id,
                                                'edge_type', e.edge_type, 'label', e.label) order by e.created_at, e.id), '[]')
       from architecture_edge e where e.architecture_id = a.id) as manual,
    (select coalesce(json_agg(json_build_object('source', pn.id, 'target', cn.id, 'kind', l.kind)), '[]')
       from architecture_node pn
       join lineage_link l on l.parent_id = pn.blueprint_id
       join architecture_node cn on cn.architecture_id = pn.architecture_id and cn.blueprint_id = l.child_id
      where pn.architecture_id = a.id) as lineage`;

/** The graph columns of one architecture `a`, for what is needed of it (none: no columns). */
function graphColumns(need: GraphNeed): string {
  return need === 'none' ? '' : need === 'nodes' ? `, ${nodesColumn}` : `, ${nodesColumn}, ${edgesColumns}`;
}

type GraphJson = { nodes: NodeJson[]; manual?: ManualEdgeJson[]; lineage?: LineageEdgeJson[] };

function graphRowsOf(row: GraphJson | undefined): GraphRows {
  return { nodes: row?.nodes ?? [], manual: (row?.manual ?? []).map(manualEdge), lineage: sortedLineageEdges(row?.lineage ?? []) };
}

function manualEdge(e: ManualEdgeJson): EdgeView {
  return { id: e.id, sourceNodeId: e.source, targetNodeId: e.target, edgeType: e.edge_type, label: e.label, computed: false };
}

/** Lineage links whose parent and child both stand on the architecture, as computed edges in id order. */
function sortedLineageEdges(links: LineageEdgeJson[]): EdgeView[] {
  return links
    .map((l) => ({
      id: lineageEdgeId(l.source, l.target),
      sourceNodeId: l.source,
      targetNodeId: l.target,
      edgeType: l.kind === 'breed' ? EdgeType.LINEAGE_BREED : EdgeType.LINEAGE_FORK,
      label: null,
      computed: true,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function loaders(ctx: RequestContext) {
  return {
    // By slug, with as much of the graph as any caller of the batch needs in the same statement (primed
    // into `graph`): the ecosystem read is then one statement besides the token lookup. The graph is read
    // before the caller's access check, but only ever handed out through `nodesOf`/`edgesOf`, which
    // take an architecture the caller may read.
    bySlug: ctx.loaders.get(
      'architecture.bySlug',
      () =>
        new DataLoader<{ slug: string; graph: GraphNeed }, ArchitectureRecord | null, string>(
          async (keys) => {
            const need: GraphNeed = keys.some((k) => k.graph === 'edges') ? 'edges' : keys.some((k) => k.graph === 'nodes') ? 'nodes' : 'none';
            const among = amongKeys('a.slug', [...new Set(keys.map((k) => k.slug))], 'text');
            const rows = await executeShaped<ArchitectureRow & GraphJson>(sqlEm(ctx), {
              sql: `select ${architectureColumns}${graphColumns(need)} from architecture a where ${among.sql}`,
              params: among.params,
            });
            if (need !== 'none') {
              const graph = loaders(ctx).graph;
              for (const row of rows) {
                const rowsOfGraph = graphRowsOf(row);
                graph.prime({ id: row.id, edges: false }, rowsOfGraph);
                if (need === 'edges') graph.prime({ id: row.id, edges: true }, rowsOfGraph);
              }
            }
            const bySlug = new Map(rows.map((r) => [r.slug, toRecord(r)]));
            return keys.map((k) => bySlug.get(k.slug) ?? null);
          },
          { cacheKeyFn: (k) => `${k.slug}:${k.graph}` },
        ),
    ),
    // The graph: nodes with the card and module composition of their blueprints (computed in SQL, so
    // that the ecosystem view never loads whole plans), and, when asked for, the manual and lineage edges.
    // One statement for any number of nodes, edges and architectures, answering one row of JSON per
    // architecture: PostgreSQL builds it, and the server parses it with one JSON.parse per column
    // instead of converting 200 rows of 20 columns field by field (and 3 statements became 1).
    graph: ctx.loaders.get(
      'architecture.graph',
      () =>
        new DataLoader<GraphKey, GraphRows, string>(
          async (keys) => {
            const withEdges = keys.some((k) => k.edges);
            const ids = [...new Set(keys.map((k) => k.id))];
            const architectures = keysTable(ids, 'uuid', 'a', 'id');
            const rows = await executeShaped<{ id: string } & GraphJson>(sqlEm(ctx), {
              sql: `select a.id${graphColumns(withEdges ? 'edges' : 'nodes')} from ${architectures.sql}`,
              params: architectures.params,
            });
            // Mapped once per architecture: the nodes key and the edges key of one architecture share it.
            const byId = new Map(rows.map((r) => [r.id, graphRowsOf(r)]));
            return keys.map((k) => byId.get(k.id) ?? graphRowsOf(undefined));
          },
          { cacheKeyFn: (k) => `${k.id}:${k.edges}` },
        ),
    ),
  };
}

/** The architecture with this slug, whoever may see it (access is the caller's business). */
export function findArchitecture(ctx: RequestContext, slug: string, graph: GraphNeed = 'none'): Promise<ArchitectureRecord | null> {
  return loaders(ctx).bySlug.load({ slug, graph });
}

export function canReadArchitecture(ctx: RequestContext, arch: ArchitectureRecord): Promise<boolean> {
  return canRead(ctx, guardOfArchitecture(arch));
}

export async function canEditArchitecture(ctx: RequestContext, arch: ArchitectureRecord): Promise<boolean> {
  return canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOfArchitecture(arch));
}

/** An architecture the viewer may read; 404 when it does not exist or is private to others. */
export async function getArchitecture(ctx: RequestContext, slug: string, graph: GraphNeed = 'none'): Promise<ArchitectureRecord> {
  const arch = await findArchitecture(ctx, slug, graph);
  if (!arch || !(await canReadArchitecture(ctx, arch))) throw notFound('architecture', slug);
  return arch;
}

/** The nodes in the order they were added, with cards; one batched statement for any number of nodes and architectures. */
export function nodesOf(ctx: RequestContext, arch: ArchitectureRecord): Promise<NodeView[]> {
  // Once per request and architecture: the nodes field and `edgesOf` both need the views.
  return ctx.loaders.once(`architecture.nodes:${arch.id}`, async () =>
    nodeViews(ctx, arch, (await loaders(ctx).graph.load({ id: arch.id, edges: false })).nodes),
  );
}

async function nodeViews(ctx: RequestContext, arch: ArchitectureRecord, rows: NodeJson[]): Promise<NodeView[]> {
  // The viewer's teams are looked up only when a node's blueprint is neither public nor the viewer's own.
  const guards = rows.map((r): Guarded => ({ visibility: r.visibility, ownerId: r.owner_id, teamId: r.team_id }));
  const roles = guards.some((g) => g.visibility !== Visibility.PUBLIC && !isOwner(ctx.viewer, g))
    ? await viewerTeamRoles(ctx)
    : (new Map() as Awaited<ReturnType<typeof viewerTeamRoles>>);
  return rows.map((r, i) => {
    const visible = canReadWith(ctx.viewer, roles, guards[i]!);
    // The blueprint's own rules, so the card's figures are the blueprint's by definition.
    const successRate = successRateOf({ executionsCompleted: r.completed, executionsFailed: r.failed, executionsAbandoned: r.abandoned });
    const ratingAverage = ratingAverageOf(r.reviews, r.rating_sum);
    return {
      id: r.id,
      architectureId: arch.id,
      blueprintId: r.blueprint_id,
      position: { x: Number(r.x), y: Number(r.y) },
      card: visible
        ? {
            id: r.blueprint_id,
            slug: r.slug,
            name: r.name,
            starsCount: r.stars,
            moduleCount: r.modules,
            stepCount: r.steps,
            successRate,
            reviewCount: r.reviews,
            ratingAverage,
            ownerId: r.owner_id,
          }
        : null,
      composition: visible ? r.composition : [],
      redacted: !visible,
      planBytes: visible ? r.plan_bytes : 0,
    };
  });
}

/**
 * The blueprint behind a node, batched, with the columns the selection needs (its plan fields then charge
 * the answer's budget before reading the plan, as everywhere); null when the node is redacted.
 */
export async function nodeBlueprint(ctx: RequestContext, node: NodeView, info?: GraphQLResolveInfo): Promise<BlueprintView | null> {
  if (node.redacted) return null;
  return blueprintRowLoader(ctx, projectionFor(info), 'id').load(node.blueprintId);
}

/**
 * The plan behind a node for the zoom field `field` (zoom levels 2 and 3), charged to the answer's work
 * budget BEFORE it is read (platform/graphql/response-budget.ts): a node's zoom fields together pay its plan once,
 * an alias pays again. Null when the node is redacted.
 */
export async function nodePlan(ctx: RequestContext, node: NodeView, field: string): Promise<Plan | null> {
  if (node.redacted) return null;
  chargeResponsePart(ctx, node, field, node.planBytes, ctx.config.limits.responsePlanBytesMax, `ArchitectureNode.${field}`);
  return planById(ctx, node.blueprintId);
}

/**
 * Manual edges in the order they were drawn, then the computed lineage edges between nodes the viewer
 * may read (an edge to a redacted node would tell how a hidden blueprint came about).
 */
export async function edgesOf(ctx: RequestContext, arch: ArchitectureRecord): Promise<EdgeView[]> {
  const [graph, nodes] = await Promise.all([loaders(ctx).graph.load({ id: arch.id, edges: true }), nodesOf(ctx, arch)]);
  const visible = new Set(nodes.filter((n) => !n.redacted).map((n) => n.id));
  return [...graph.manual, ...graph.lineage.filter((e) => visible.has(e.sourceNodeId) && visible.has(e.targetNodeId))];
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
