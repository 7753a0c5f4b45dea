import type { EntityManager } from '@mikro-orm/postgresql';
import type { EdgeType } from './architecture.entity';

export interface NodeRow {
  id: string;
  blueprintId: string;
  x: number;
  y: number;
}

export interface EdgeRow {
  id: string;
  sourceNodeId: string;
  targetNodeId: string;
  edgeType: EdgeType;
  label: string | null;
}

// The one writer of architecture nodes and edges (the editor and the compose tool). Raw SQL: a reference to
// a blueprint loaded by the request's EntityManager, taken inside a transaction's fork, would be merged back
// over the loaded entity on commit. Creation times a microsecond apart keep the given order (reads order by
// created_at, id), and clock_timestamp() keeps it across transactions that wait on the architecture lock.

/** Inserts nodes of one architecture in one statement, in the order given. */
export async function insertNodes(tx: EntityManager, architectureId: string, nodes: readonly NodeRow[]): Promise<void> {
  if (nodes.length === 0) return;
  await tx.execute(
    `insert into architecture_node (id, architecture_id, blueprint_id, position_x, position_y, created_at)
     select v.id, ?, v.blueprint_id, v.x, v.y, clock_timestamp() + v.n * interval '1 microsecond'
       from jsonb_to_recordset(?::jsonb) as v(id uuid, blueprint_id uuid, x float8, y float8, n int)`,
    [architectureId, JSON.stringify(nodes.map((n, i) => ({ id: n.id, blueprint_id: n.blueprintId, x: n.x, y: n.y, n: i })))],
  );
}

/** Inserts manual edges of one architecture in one statement, in the order given. */
export async function insertEdges(tx: EntityManager, architectureId: string, edges: readonly EdgeRow[]): Promise<void> {
  if (edges.length === 0) return;
  await tx.execute(
    `insert into architecture_edge (id, architecture_id, source_node_id, target_node_id, edge_type, label, created_at)
     select v.id, ?, v.source, v.target, v.edge_type, v.label, clock_timestamp() + v.n * interval '1 microsecond'
       from jsonb_to_recordset(?::jsonb) as v(id uuid, source uuid, target uuid, edge_type text, label text, n int)`,
    [
      architectureId,
      JSON.stringify(edges.map((e, i) => ({ id: e.id, source: e.sourceNodeId, target: e.targetNodeId, edge_type: e.edgeType, label: e.label, n: i }))),
    ],
  );
}
