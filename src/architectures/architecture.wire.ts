import { toCard } from '../blueprints/blueprint.wire';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { architectureView, getArchitecture, type ArchitectureRecord, type ArchitectureView, type EdgeView, type NodeView } from './architecture.read';
import { listPublicArchitectures, listTeamArchitectures, type ArchitectureSummary } from './architecture.service';

/** A node: a redacted node names neither its blueprint nor its id (the caller may not see that blueprint). */
export function toNodeBody(n: NodeView) {
  return {
    id: n.id,
    blueprint_id: n.redacted ? null : n.blueprintId,
    position_x: n.position.x,
    position_y: n.position.y,
    blueprint: n.card ? toCard(n.card) : null,
    redacted: n.redacted,
  };
}

export function toEdgeBody(e: EdgeView) {
  return { id: e.id, source_node_id: e.sourceNodeId, target_node_id: e.targetNodeId, edge_type: e.edgeType, label: e.label, computed: e.computed };
}

function head(a: ArchitectureRecord) {
  return {
    id: a.id,
    slug: a.slug,
    name: a.name,
    description: a.description,
    visibility: a.visibility,
    owner_id: a.ownerId,
    team_id: a.teamId,
  };
}

/** The REST architecture body of docs/api.md. */
export function toArchitectureBody(v: ArchitectureView) {
  return {
    ...head(v.architecture),
    nodes: v.nodes.map(toNodeBody),
    edges: v.edges.map(toEdgeBody),
    created_at: v.architecture.createdAt.toISOString(),
    updated_at: v.architecture.updatedAt.toISOString(),
  };
}

/** A list item: the architecture without its nodes and edges, with their counts. */
export function toSummaryBody(s: ArchitectureSummary) {
  return {
    ...head(s),
    node_count: s.nodeCount,
    edge_count: s.edgeCount,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** `GET /api/architectures` (REST and MCP): public architectures, newest first, without nodes and edges. */
export async function architectureListBody(ctx: RequestContext, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const result = await listPublicArchitectures(ctx, page);
  return { items: result.items.map(toSummaryBody), total: result.total, ...page };
}

/** `GET /api/architectures/:slug` and every write that answers the architecture as it now is (REST and MCP). */
export async function architectureBodyOf(ctx: RequestContext, arch: ArchitectureRecord | string) {
  const record = typeof arch === 'string' ? await getArchitecture(ctx, arch, 'edges') : arch;
  return toArchitectureBody(await architectureView(ctx, record));
}

/** `GET /api/teams/:id/architectures` (REST and MCP). */
export async function teamArchitecturesBody(ctx: RequestContext, teamId: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const { items, total } = await listTeamArchitectures(ctx, teamId, page);
  return { items: items.map(toSummaryBody), total, ...page };
}
