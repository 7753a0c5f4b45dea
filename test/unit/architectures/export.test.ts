import { Visibility } from '../../../src/blueprints/blueprint.entity';
import { EdgeType } from '../../../src/architectures/architecture.entity';
import type { ArchitectureView, BlueprintCard } from '../../../src/architectures/architecture.read';
import { dotString, exportArchitecture, mermaidText, toDot, toMermaid } from '../../../src/architectures/export';

const card = (name: string): BlueprintCard => ({
  id: `bp-${name}`,
  ownerId: 'owner-1',
  slug: name,
  name,
  moduleCount: 3,
  stepCount: 7,
  starsCount: 1,
  successRate: null,
  reviewCount: 0,
  ratingAverage: null,
});

const view: ArchitectureView = {
  architecture: {
    id: 'a1',
    slug: 'shop',
    name: 'Shop "v2" | <main>',
    description: '',
    visibility: Visibility.PUBLIC,
    ownerId: 'o',
    teamId: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  },
  nodes: [
    {
      id: 'n-a',
      architectureId: 'a1',
      blueprintId: 'bp-api',
      position: { x: 10, y: 20 },
      card: card('API "core"'),
      composition: [],
      redacted: false,
      planBytes: 0,
    },
    { id: 'n-b', architectureId: 'a1', blueprintId: 'bp-secret', position: { x: 300, y: 0 }, card: null, composition: [], redacted: true, planBytes: 0 },
    { id: 'n-c', architectureId: 'a1', blueprintId: 'bp-web', position: { x: 0, y: 200 }, card: card('Web'), composition: [], redacted: false, planBytes: 0 },
  ],
  edges: [
    { id: 'e1', sourceNodeId: 'n-c', targetNodeId: 'n-a', edgeType: EdgeType.API_CALL, label: 'GET /items|x', computed: false },
    { id: 'e2', sourceNodeId: 'n-a', targetNodeId: 'n-b', edgeType: EdgeType.CUSTOM, label: 'audits', computed: false },
    { id: 'lineage:n-a:n-c', sourceNodeId: 'n-a', targetNodeId: 'n-c', edgeType: EdgeType.LINEAGE_FORK, label: null, computed: true },
  ],
};

describe('export', () => {
  it('Mermaid: escapes label characters, draws lineage dotted, shows redacted nodes without names', () => {
    const text = toMermaid(view);
    expect(text).toContain('flowchart LR');
    expect(text).toContain('n1["API #quot;core#quot;<br/>3 modules, 7 steps"]');
    expect(text).toContain('n2["private blueprint"]');
    expect(text).toContain('n3 -->|api_call: GET /items#124;x| n1');
    expect(text).toContain('n1 -.->|lineage_fork| n3');
    expect(text).not.toContain('bp-secret');
    expect(text).toContain('%% Shop #quot;v2#quot; #124; #lt;main#gt; (shop)');
  });

  it('escapes # before adding entity codes', () => {
    expect(mermaidText('a#b"')).toBe('a#35;b#quot;');
  });

  it('DOT: quotes and escapes strings, pins positions with y flipped, dashes computed edges', () => {
    const text = toDot(view);
    expect(text.startsWith('digraph "shop" {')).toBe(true);
    expect(text).toContain('label="Shop \\"v2\\" | <main>";');
    expect(text).toContain('"n-a" [label="API \\"core\\"\\n3 modules, 7 steps", pos="10,-20!"];');
    expect(text).toContain('"n-b" [label="private blueprint", pos="300,0!", style="rounded,dashed"];');
    expect(text).toContain('"n-a" -> "n-c" [label="lineage_fork", style=dashed];');
    expect(dotString('a\\b\nc')).toBe('"a\\\\b\\nc"');
  });

  it('JSON: the REST body, redacted nodes without blueprint id or card', () => {
    const body = JSON.parse(exportArchitecture(view, 'json'));
    expect(body.slug).toBe('shop');
    expect(body.nodes[1]).toEqual({ id: 'n-b', blueprint_id: null, position_x: 300, position_y: 0, blueprint: null, redacted: true });
    expect(body.edges).toHaveLength(3);
  });
});
