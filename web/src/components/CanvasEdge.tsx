import { BaseEdge, EdgeLabelRenderer, Handle, Position, getBezierPath, type EdgeProps } from '@xyflow/react';

const SIDES = [Position.Top, Position.Right, Position.Bottom, Position.Left] as const;

type Box = { x: number; y: number; width: number; height: number };

/**
 * The side of `from` that faces `to`: right when `to` lies mostly to the right, bottom when mostly below,
 * and so on. An edge leaves its source on the side facing its target and enters the target on the side
 * facing the source, so it never doubles back around a card.
 */
export function sideFacing(from: Box, to: Box): Position {
  const dx = to.x + to.width / 2 - (from.x + from.width / 2);
  const dy = to.y + to.height / 2 - (from.y + from.height / 2);
  if (Math.abs(dx) >= Math.abs(dy)) return dx >= 0 ? Position.Right : Position.Left;
  return dy >= 0 ? Position.Bottom : Position.Top;
}

/** Handle ids for a side: `out-right` (source), `in-left` (target). */
export const sourceHandle = (side: Position) => `out-${side}`;
export const targetHandle = (side: Position) => `in-${side}`;

/**
 * A source and a target handle on each side of a node. Targets come first, so where they overlap a drag
 * starts from the source handle. Hidden unless the viewer can draw edges.
 */
export function SideHandles({ connectable }: { connectable: boolean }) {
  return (
    <>
      {SIDES.map((side) => (
        <Handle key={`in-${side}`} id={targetHandle(side)} type="target" position={side} isConnectable={connectable} className="side-handle" />
      ))}
      {SIDES.map((side) => (
        <Handle key={`out-${side}`} id={sourceHandle(side)} type="source" position={side} isConnectable={connectable} className="side-handle" />
      ))}
    </>
  );
}

/**
 * An edge whose label is drawn in React Flow's label layer, above the nodes (`.edge-label` has a z-index
 * over any node's, a selected one's included), so a card never hides it.
 */
export function LabelledEdge({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, label, markerEnd, style }: EdgeProps) {
  const [path, labelX, labelY] = getBezierPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition });
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} />
      {label && (
        <EdgeLabelRenderer>
          <div
            className="edge-label nodrag nopan"
            data-testid="edge-label"
            data-edge-id={id}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          >
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}
