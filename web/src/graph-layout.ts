import dagre from '@dagrejs/dagre';

export interface LayoutInput {
  nodes: { id: string; width: number; height: number }[];
  edges: { source: string; target: string }[];
  direction?: 'TB' | 'LR';
}

/** Positions (top-left corners) from dagre's layered layout, for React Flow. */
export function layeredLayout({ nodes, edges, direction = 'TB' }: LayoutInput): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: direction, nodesep: 40, ranksep: 70, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  const out = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const p = g.node(n.id);
    out.set(n.id, { x: p.x - n.width / 2, y: p.y - n.height / 2 });
  }
  return out;
}
