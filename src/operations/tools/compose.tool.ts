import { randomUUID } from 'node:crypto';
import { EdgeType, lineageEdgeTypes, manualEdgeTypes } from '../../architectures/architecture.entity';
import { insertArchitecture } from '../../architectures/architecture.service';
import { insertEdges, insertNodes } from '../../architectures/architecture.write';
import { inferEdges } from '../../architectures/inference';
import { placeNodes } from '../../architectures/layout';
import type { Visibility } from '../../blueprints/blueprint.entity';
import { defaultLimits } from '../../platform/config';
import { invalid, invalidAll } from '../../platform/errors';
import type { ValidationIssue } from '../../platform/json-schema';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { descriptionField, nameField, withDefault } from '../../platform/field-schemas';
import { visibilityField } from '../../blueprints/blueprint.contract';

interface ComposeParams {
  name?: string;
  description?: string;
  visibility?: Visibility;
}

interface WireEdge {
  source_blueprint_id: string;
  target_blueprint_id: string;
  edge_type: string;
  label?: string | null;
}

interface ComposeState {
  lineage: Array<{ parent_id: string; child_id: string; kind: string }>;
  inferred: Array<WireEdge & { reason: string }>;
  edges?: Array<Required<WireEdge>>;
  final?: { name: string; description: string; visibility: Visibility };
}

type Ctx = ToolContext<ComposeParams, ComposeState>;

function sourceList(c: Ctx): string {
  return c.sources
    .map((bp, i) => {
      const kinds = [...new Set(bp.plan.modules.map((m) => m.kind))].join(', ') || 'no modules';
      return `${i + 1}. ${bp.name} (id ${bp.id}): ${bp.moduleCount} modules (${kinds}), ${bp.stepCount} steps`;
    })
    .join('\n');
}

function lineageList(c: Ctx): string {
  if (c.state.lineage.length === 0) return 'No lineage links join these blueprints.';
  const name = new Map(c.sources.map((s) => [s.id, s.name]));
  return c.state.lineage.map((l) => `- ${name.get(l.parent_id)} -> ${name.get(l.child_id)} (${l.kind})`).join('\n');
}

/**
 * The `compose` tool: a NEW architecture with the sources as nodes (laid out on the grid) and the edges
 * the agent confirms, starting from edges inferred from module kinds; lineage edges appear by themselves.
 */
/** Constant, so Ajv compiles it once; the configured edge limit is checked in `accept`. */
const edgesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['edges'],
  properties: {
    edges: {
      type: 'array',
      maxItems: defaultLimits.architectureMaxEdges,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source_blueprint_id', 'target_blueprint_id', 'edge_type'],
        properties: {
          source_blueprint_id: { type: 'string', maxLength: 100 },
          target_blueprint_id: { type: 'string', maxLength: 100 },
          edge_type: { type: 'string', maxLength: 40 },
          label: { type: ['string', 'null'], maxLength: 200 },
          reason: { type: 'string' },
        },
      },
    },
  },
};

export const composeTool: ToolDefinition<ComposeParams, ComposeState> = {
  type: 'compose',
  summary: 'Compose two or more blueprints into a new architecture: the blueprints become nodes, joined by inferred and confirmed edges.',
  sources: { min: 2, max: 100 },
  sourceAccess: 'read',
  output: 'architecture',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      name: nameField,
      description: descriptionField,
      visibility: visibilityField,
    },
  },
  async initialState(c) {
    const ids = `{${c.sources.map((s) => s.id).join(',')}}`;
    const lineage: ComposeState['lineage'] = await c.tx.execute(
      'select parent_id, child_id, kind from lineage_link where parent_id = any(?::uuid[]) and child_id = any(?::uuid[]) order by created_at, id',
      [ids, ids],
    );
    const related = new Set(lineage.flatMap((l) => [`${l.parent_id}:${l.child_id}`, `${l.child_id}:${l.parent_id}`]));
    const inferred = inferEdges(c.sources, (a, b) => related.has(`${a}:${b}`)).map((e) => ({
      source_blueprint_id: e.sourceId,
      target_blueprint_id: e.targetId,
      edge_type: e.edgeType,
      label: e.label,
      reason: e.reason,
    }));
    return { lineage: lineage.map((l) => ({ parent_id: l.parent_id, child_id: l.child_id, kind: l.kind })), inferred };
  },
  steps: () => [
    {
      title: 'Edges',
      prompt: (c) =>
        `Compose these blueprints into one architecture; each becomes a node:\n${sourceList(c)}\n\nLineage (drawn automatically as lineage_fork / lineage_breed edges; do not submit these):\n${lineageList(c)}\n\n` +
        `Edges inferred from the modules (with the reason for each):\n${JSON.stringify(c.state.inferred, null, 2)}\n\n` +
        'Step 1 of 2: submit the edges of the architecture as {"edges": [{"source_blueprint_id", "target_blueprint_id", "edge_type", "label"}]}: keep the inferred ones that hold ("reason" may stay), remove the wrong ones, add missing ones. edge_type is one of api_call (HTTP/gRPC), event (queues, pub/sub), shared_db, auth, custom (custom needs a label).',
      submissionSchema: edgesSchema,
      accept: (c, s: { edges: WireEdge[] }) => {
        const max = c.ctx.config.limits.architectureMaxEdges;
        if (s.edges.length > max)
          throw invalid('submission/edges', `must hold at most ${max} edges`, `submission/edges has ${s.edges.length} edges; at most ${max} are allowed`);
        const ids = new Set(c.sources.map((b) => b.id));
        const issues: ValidationIssue[] = [];
        const seen = new Set<string>();
        const edges = s.edges.map((e, i) => {
          const at = `submission/edges/${i}`;
          const source = e.source_blueprint_id.toLowerCase();
          const target = e.target_blueprint_id.toLowerCase();
          const label = e.label?.trim() || null;
          if (!ids.has(source)) issues.push({ path: `${at}/source_blueprint_id`, message: 'is not one of the source blueprints' });
          if (!ids.has(target)) issues.push({ path: `${at}/target_blueprint_id`, message: 'is not one of the source blueprints' });
          if (source === target) issues.push({ path: `${at}/target_blueprint_id`, message: 'must differ from source_blueprint_id' });
          if (lineageEdgeTypes.includes(e.edge_type as EdgeType))
            issues.push({ path: `${at}/edge_type`, message: 'is a lineage type; lineage edges are computed, leave them out' });
          else if (!manualEdgeTypes.includes(e.edge_type as EdgeType))
            issues.push({ path: `${at}/edge_type`, message: `must be one of: ${manualEdgeTypes.join(', ')}` });
          if (e.edge_type === EdgeType.CUSTOM && label === null) issues.push({ path: `${at}/label`, message: 'is required for a custom edge' });
          const key = `${source}|${target}|${e.edge_type}|${label ?? ''}`;
          if (seen.has(key)) issues.push({ path: at, message: 'repeats an earlier edge' });
          seen.add(key);
          return { source_blueprint_id: source, target_blueprint_id: target, edge_type: e.edge_type, label };
        });
        if (issues.length > 0) throw invalidAll(issues);
        return { ...c.state, edges };
      },
    },
    {
      title: 'Name and visibility',
      prompt: (c) =>
        `Step 2 of 2: name the architecture, describe it, and choose its visibility: public (browsable by anyone; blueprints others may not read are shown redacted) or private.` +
        (c.params.name ? ` Suggested name: ${c.params.name}.` : '') +
        (c.params.visibility ? ` Requested visibility: ${c.params.visibility}.` : ''),
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'visibility'],
        properties: {
          name: nameField,
          description: withDefault(descriptionField, ''),
          visibility: visibilityField,
        },
      },
      accept: (c, s: { name: string; description: string; visibility: Visibility }) => ({ ...c.state, final: s }),
    },
  ],
  async finish(c) {
    const final = c.state.final!;
    const arch = await insertArchitecture(c.tx, c.operation.principal.id, { name: final.name, description: final.description, visibility: final.visibility });
    const positions = placeNodes([], c.sources.length);
    const nodes = c.sources.map((s, i) => ({ id: randomUUID(), blueprintId: s.id, x: positions[i]!.x, y: positions[i]!.y }));
    const nodeOf = new Map(nodes.map((n) => [n.blueprintId, n.id]));
    const edges = (c.state.edges ?? []).map((e) => ({
      id: randomUUID(),
      sourceNodeId: nodeOf.get(e.source_blueprint_id)!,
      targetNodeId: nodeOf.get(e.target_blueprint_id)!,
      edgeType: e.edge_type as EdgeType,
      label: e.label,
    }));
    await insertNodes(c.tx, arch.id, nodes);
    await insertEdges(c.tx, arch.id, edges);
    return {
      architecture_id: arch.id,
      architecture: { id: arch.id, slug: arch.slug, name: arch.name, visibility: arch.visibility },
      node_ids: nodes.map((n) => n.id),
      edge_count: edges.length,
      lineage_links: c.state.lineage.length,
    };
  },
};
