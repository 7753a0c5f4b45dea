import { Background, Controls, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { Handle, Position } from '@xyflow/react';
import { useMemo } from 'react';
import { useNavigate } from 'react-router-dom';
import type { BlueprintLineageQuery } from '../generated/graphql';
import { layeredLayout } from '../graph-layout';
import { plural } from './Status';

type Lineage = NonNullable<BlueprintLineageQuery['blueprint']>['lineage'];
type LineageNodeData = { name: string; owner: string; slug: string; stars: number; modules: number; current: boolean };

const W = 190;
const H = 64;

function LineageNode({ data }: NodeProps<Node<LineageNodeData>>) {
  return (
    <div className={`bp-node${data.current ? ' current' : ''}`} style={{ width: W }} data-testid="lineage-node" data-slug={data.slug}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="name">{data.name}</div>
      <div className="meta">
        by {data.owner} · ★ {data.stars} · {plural(data.modules, 'module')}
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { lineage: LineageNode };

/** Ancestors above, descendants below, laid out by dagre; clicking (or Enter on) a node opens it. */
export function LineageGraph({ lineage, currentId }: { lineage: Lineage; currentId: string }) {
  const navigate = useNavigate();
  const { nodes, edges } = useMemo(() => {
    const edges: Edge[] = lineage.edges.map((e) => ({
      id: `${e.parent.id}-${e.child.id}`,
      source: e.parent.id,
      target: e.child.id,
      label: e.kind.toLowerCase(),
      animated: e.kind === 'BREED',
    }));
    const pos = layeredLayout({ nodes: lineage.nodes.map((n) => ({ id: n.id, width: W, height: H })), edges });
    const nodes: Node<LineageNodeData>[] = lineage.nodes.map((n) => ({
      id: n.id,
      type: 'lineage',
      position: pos.get(n.id)!,
      draggable: false,
      ariaLabel: `${n.name} by ${n.owner.name}${n.id === currentId ? ' (this blueprint)' : ''}`,
      data: { name: n.name, owner: n.owner.name, slug: n.slug, stars: n.stars, modules: n.moduleCount, current: n.id === currentId },
    }));
    return { nodes, edges };
  }, [lineage, currentId]);

  return (
    <div className="canvas" role="figure" aria-label="Lineage graph">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        nodesConnectable={false}
        onNodeClick={(_e, n) => navigate(`/blueprints/${n.data.slug}`)}
        onNodesChange={() => undefined}
        onKeyDown={(e) => {
          const id = (e.target as HTMLElement).closest('[data-id]')?.getAttribute('data-id');
          const n = id ? nodes.find((x) => x.id === id) : undefined;
          if (n && e.key === 'Enter') navigate(`/blueprints/${n.data.slug}`);
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
