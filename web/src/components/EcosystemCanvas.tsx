import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  applyNodeChanges,
  type Connection,
  type Edge,
  type Node,
  type NodeChange,
  type NodeProps,
  useReactFlow,
} from '@xyflow/react';
import { useEffect, useRef, useState } from 'react';
import type { ArchitectureFieldsFragment } from '../generated/graphql';
import { LabelledEdge, SideHandles, sideFacing, sourceHandle, targetHandle } from './CanvasEdge';
import { CompositionBar } from './Composition';
import { plural } from './Status';

type ArchNode = ArchitectureFieldsFragment['nodes'][number];
type BpData = { node: ArchNode; editable: boolean };

function BlueprintNode({ data, selected }: NodeProps<Node<BpData>>) {
  const { card, composition, redacted } = data.node;
  return (
    <div className={`bp-node${selected ? ' selected' : ''}`} data-testid="arch-node" data-node-id={data.node.id}>
      <SideHandles connectable={data.editable} />
      <div className="name">{redacted ? 'Private blueprint' : card?.name}</div>
      {card && (
        <div className="meta">
          by {card.owner.name} · ★ {card.stars} · {plural(card.moduleCount, 'module')} · {plural(card.stepCount, 'step')}
        </div>
      )}
      <CompositionBar composition={composition} />
    </div>
  );
}

const nodeTypes = { blueprint: BlueprintNode };
const edgeTypes = { labelled: LabelledEdge };

/** A node's box in flow coordinates; before React Flow has measured it, the card's CSS size. */
const boxOf = (n: Node<BpData>) => ({ x: n.position.x, y: n.position.y, width: n.measured?.width ?? 200, height: n.measured?.height ?? 80 });

/** Fits the view again when nodes come or go, so a node added on a free grid cell is in sight. */
function FitOnCountChange({ count }: { count: number }) {
  const flow = useReactFlow();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // After React Flow has measured the new node.
    const frame = requestAnimationFrame(() => void flow.fitView({ maxZoom: 1, duration: 0 }));
    return () => cancelAnimationFrame(frame);
  }, [count, flow]);
  return null;
}

export function edgeLabel(e: ArchitectureFieldsFragment['edges'][number]): string {
  const type = e.edgeType.toLowerCase().replace('_', ' ');
  return e.label ? `${type}: ${e.label}` : type;
}

function toFlowNodes(arch: ArchitectureFieldsFragment, previous: Node<BpData>[]): Node<BpData>[] {
  const selected = new Set(previous.filter((n) => n.selected).map((n) => n.id));
  return arch.nodes.map((n) => ({
    id: n.id,
    type: 'blueprint',
    position: { x: n.position.x, y: n.position.y },
    data: { node: n, editable: arch.viewerCanEdit },
    selected: selected.has(n.id),
    draggable: arch.viewerCanEdit,
    deletable: arch.viewerCanEdit,
    ariaLabel: n.redacted ? 'Private blueprint' : `${n.card?.name ?? ''} by ${n.card?.owner.name ?? ''}: ${plural(n.card?.moduleCount ?? 0, 'module')}`,
  }));
}

/**
 * The ecosystem zoom level: blueprints with their composition bars, manual edges (solid) and computed
 * lineage edges (dashed, not deletable). Moves are saved through `onMove` once a drag (or an arrow-key
 * move) ends.
 */
export function EcosystemCanvas(props: {
  arch: ArchitectureFieldsFragment;
  onMove(entries: { nodeId: string; position: { x: number; y: number } }[]): void;
  onConnect(source: string, target: string): void;
  onDeleteNodes(ids: string[]): void;
  onDeleteEdges(ids: string[]): void;
  onOpenNode(id: string): void;
  onSelectionChange?(nodeIds: string[], edgeIds: string[]): void;
}) {
  const { arch } = props;
  const [nodes, setNodes] = useState<Node<BpData>[]>(() => toFlowNodes(arch, []));
  const dragging = useRef(false);
  const pending = useRef(new Map<string, { x: number; y: number }>());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    if (!dragging.current) setNodes((prev) => toFlowNodes(arch, prev));
  }, [arch]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges: Edge[] = arch.edges.map((e) => {
    // Each end on the side facing the other node, from the positions as drawn (so also while dragging).
    const from = byId.get(e.source);
    const to = byId.get(e.target);
    const sides =
      from && to ? { sourceHandle: sourceHandle(sideFacing(boxOf(from), boxOf(to))), targetHandle: targetHandle(sideFacing(boxOf(to), boxOf(from))) } : {};
    return {
      id: e.id,
      source: e.source,
      target: e.target,
      ...sides,
      type: 'labelled',
      label: edgeLabel(e),
      deletable: !e.computed && arch.viewerCanEdit,
      style: e.computed ? { strokeDasharray: '6 4', stroke: '#868e96' } : { stroke: '#4c6ef5', strokeWidth: 2 },
      markerEnd: { type: MarkerType.ArrowClosed },
      ariaLabel: `${e.computed ? 'Lineage' : 'Manual'} edge ${edgeLabel(e)}`,
    };
  });

  const onNodesChange = (changes: NodeChange<Node<BpData>>[]) => {
    setNodes((ns) => applyNodeChanges(changes, ns));
    let ended = false;
    for (const c of changes) {
      if (c.type !== 'position') continue;
      if (c.dragging) dragging.current = true;
      if (c.position) pending.current.set(c.id, c.position);
      if (!c.dragging) ended = true;
    }
    if (ended && pending.current.size > 0) {
      dragging.current = false;
      clearTimeout(timer.current);
      // Arrow-key moves come one by one: save them together once they stop.
      timer.current = setTimeout(() => {
        const entries = [...pending.current].map(([nodeId, p]) => ({ nodeId, position: { x: Math.round(p.x), y: Math.round(p.y) } }));
        pending.current.clear();
        props.onMove(entries);
      }, 200);
    }
  };

  return (
    <div className="canvas" role="figure" aria-label="Architecture canvas, ecosystem level" data-testid="ecosystem-canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        onNodesChange={onNodesChange}
        nodesConnectable={arch.viewerCanEdit}
        nodesDraggable={arch.viewerCanEdit}
        onConnect={(c: Connection) => c.source && c.target && c.source !== c.target && props.onConnect(c.source, c.target)}
        onNodesDelete={(ns) => props.onDeleteNodes(ns.map((n) => n.id))}
        onEdgesDelete={(es) => props.onDeleteEdges(es.map((e) => e.id))}
        onNodeDoubleClick={(_e, n) => props.onOpenNode(n.id)}
        // A double-click opens the blueprint's modules; it must not zoom the canvas as well.
        zoomOnDoubleClick={false}
        onSelectionChange={({ nodes: ns, edges: es }) =>
          props.onSelectionChange?.(
            ns.map((n) => n.id),
            es.map((e) => e.id),
          )
        }
        deleteKeyCode={arch.viewerCanEdit ? ['Delete', 'Backspace'] : null}
      >
        <Background />
        <Controls showInteractive={false} />
        <FitOnCountChange count={arch.nodes.length} />
      </ReactFlow>
    </div>
  );
}
