import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { useMemo } from 'react';
import type { ArchitectureNodeModulesQuery } from '../generated/graphql';
import { layeredLayout } from '../graph-layout';
import { kindColor } from './Composition';
import { plural } from './Status';

type ArchNode = NonNullable<NonNullable<ArchitectureNodeModulesQuery['architecture']>['node']>;
type ModuleData = { m: ArchNode['modules'][number] };

const W = 180;
const H = 56;

function ModuleNode({ data }: NodeProps<Node<ModuleData>>) {
  return (
    <div className="bp-node" style={{ width: W, borderLeft: `5px solid ${kindColor(data.m.kind)}` }} data-testid="module-node" data-key={data.m.key}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="name">{data.m.name}</div>
      <div className="meta">
        {data.m.kind} · {plural(data.m.stepCount, 'step')}
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { module: ModuleNode };

/** The architecture zoom level: one blueprint's modules, dependencies pointing down, laid out by dagre. */
export function ModuleGraph({ node, onOpenModule }: { node: ArchNode; onOpenModule(key: string): void }) {
  const { nodes, edges } = useMemo(() => {
    // A dependency edge reads "source depends on target": draw it target -> source so foundations sit on top.
    const edges: Edge[] = node.dependencies.map((d) => ({
      id: `${d.target}->${d.source}`,
      source: d.target,
      target: d.source,
      markerEnd: { type: MarkerType.ArrowClosed },
    }));
    const pos = layeredLayout({ nodes: node.modules.map((m) => ({ id: m.key, width: W, height: H })), edges });
    const nodes: Node<ModuleData>[] = node.modules.map((m) => ({
      id: m.key,
      type: 'module',
      position: pos.get(m.key)!,
      draggable: false,
      data: { m },
      ariaLabel: `Module ${m.name}, ${m.kind}, ${plural(m.stepCount, 'step')}`,
    }));
    return { nodes, edges };
  }, [node]);
  return (
    <div className="canvas" role="figure" aria-label="Modules and their dependencies" data-testid="module-graph">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        nodesConnectable={false}
        onNodeClick={(_e, n) => onOpenModule(n.id)}
        onKeyDown={(e) => {
          const id = (e.target as HTMLElement).closest('[data-id]')?.getAttribute('data-id');
          if (id && e.key === 'Enter') onOpenModule(id);
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
