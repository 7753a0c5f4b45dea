import type { ArchitectureRecord, ArchitectureView, BlueprintCard, EdgeView, NodeView } from './architecture.read';
import type { ArchitectureSummary } from './architecture.service';

/** The card of docs/api.md (the same shape as lineage and registry cards). */
export function toCardBody(c: BlueprintCard) {
  return { id: c.id, slug: c.slug, name: c.name, stars: c.stars, module_count: c.moduleCount, step_count: c.stepCount, success_rate: c.successRate };
}

/** A node: a redacted node names neither its blueprint nor its id (the caller may not see that blueprint). */
export function toNodeBody(n: NodeView) {
  return {
    id: n.id,
    blueprint_id: n.redacted ? null : n.blueprintId,
    position_x: n.position.x,
    position_y: n.position.y,
    blueprint: n.card ? toCardBody(n.card) : null,
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
