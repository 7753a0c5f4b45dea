import { args, argsOf, bool, idArg, obj, pageArgs, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { architectureContract, architectureInputs } from './architecture.contract';
import { addEdge, addNode, removeEdge, removeNode, updateLayout } from './architecture-edit.service';
import { teamIdArg } from '../teams/team.mcp';
import { createArchitecture, transferArchitecture } from './architecture.service';
import { removeArchitecture, updateArchitecture } from './architecture-lifecycle.service';
import { architectureBodyOf, architectureListBody, teamArchitecturesBody, toArchitectureBody, toEdgeBody, toNodeBody } from './architecture.wire';
import { architectureExport, exportFormats } from './export';

const architectureSchema = architectureContract.get.response[200];
const slug = { slug: idArg('The architecture slug.') };

/** Architectures as MCP tools: the same services and bodies as `/api/architectures`. */
export const architectureMcpTools = [
  mcpTool<{ name: string; description?: string; visibility: string }>({
    name: 'architecture_create',
    description: 'Create an empty architecture diagram you own (add blueprints as nodes next). Same body as POST /api/architectures.',
    input: argsOf({}, architectureInputs.create),
    output: architectureSchema,
    readOnly: false,
    handler: async (ctx, a) => toArchitectureBody({ architecture: await createArchitecture(ctx, a), nodes: [], edges: [] }),
  }),
  mcpTool<{ limit?: number; offset?: number }>({
    name: 'architecture_list',
    description: 'Public architectures, newest first, with node and edge counts. Same body as GET /api/architectures.',
    input: args(pageArgs),
    output: architectureContract.list.response[200],
    readOnly: true,
    handler: (ctx, a) => architectureListBody(ctx, a),
  }),
  mcpTool<{ slug: string }>({
    name: 'architecture_get',
    description:
      'One architecture: nodes (each a blueprint card; a blueprint you may not see is redacted) and edges (manual ones and computed lineage edges). Same body as GET /api/architectures/:slug.',
    input: args(slug, ['slug']),
    output: architectureSchema,
    readOnly: true,
    handler: (ctx, a) => architectureBodyOf(ctx, a.slug),
  }),
  mcpTool<{ slug: string; format?: string }>({
    name: 'architecture_export',
    description:
      'The diagram as text: mermaid, dot (Graphviz) or json (the architecture body). text is exactly what GET /api/architectures/:slug/export answers.',
    input: args({ ...slug, format: { type: 'string', enum: [...exportFormats], default: 'json' } }, ['slug']),
    output: obj({ slug: str, format: { type: 'string', enum: [...exportFormats] }, content_type: str, text: str }),
    readOnly: true,
    handler: (ctx, a) => architectureExport(ctx, a.slug, a.format),
  }),
  mcpTool<{ slug: string; blueprint_id: string; position_x?: number; position_y?: number }>({
    name: 'architecture_add_node',
    description:
      'Add a blueprint you may read as a node (placed automatically unless position_x/position_y are given); lineage edges to other nodes appear by themselves. Same body as POST /api/architectures/:slug/nodes.',
    input: argsOf(slug, architectureInputs.addNode),
    output: architectureContract.addNode.response[201],
    readOnly: false,
    handler: async (ctx, { slug: s, ...body }) => toNodeBody(await addNode(ctx, s, body)),
  }),
  mcpTool<{ slug: string; source_node_id: string; target_node_id: string; edge_type: string; label?: string | null }>({
    name: 'architecture_add_edge',
    description: 'Connect two nodes with a manual edge (api_call, event, shared_db, auth, custom). Same body as POST /api/architectures/:slug/edges.',
    input: argsOf(slug, architectureInputs.addEdge),
    output: architectureContract.addEdge.response[201],
    readOnly: false,
    handler: async (ctx, { slug: s, ...body }) => toEdgeBody(await addEdge(ctx, s, body)),
  }),
  mcpTool<{ slug: string; positions: unknown[] }>({
    name: 'architecture_update_layout',
    description:
      'Move nodes, all or nothing: positions is [{nodeId, position: {x, y}}]. Answers the architecture as it now is. Same body as PUT /api/architectures/:slug/layout.',
    input: args({ ...slug, positions: architectureInputs.layout }, ['slug', 'positions']),
    output: architectureSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => architectureBodyOf(ctx, await updateLayout(ctx, a.slug, a.positions)),
  }),
  mcpTool<{ slug: string; team_id: string }>({
    name: 'architecture_transfer',
    description: 'Move an architecture you own into a team you belong to. Same body as POST /api/architectures/:slug/transfer.',
    input: argsOf(slug, architectureInputs.transfer),
    output: architectureSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { slug: s, ...body }) => architectureBodyOf(ctx, await transferArchitecture(ctx, s, body)),
  }),
  mcpTool<{ slug: string; node_id: string }>({
    name: 'architecture_remove_node',
    description: 'Remove a node and its edges (REST answers 204: DELETE /api/architectures/:slug/nodes/:nodeId). Answers {slug, node_id, removed: true}.',
    input: args({ ...slug, node_id: idArg('The node id.') }, ['slug', 'node_id']),
    output: obj({ slug: str, node_id: str, removed: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      const arch = await removeNode(ctx, a.slug, a.node_id);
      return { slug: arch.slug, node_id: a.node_id, removed: true };
    },
  }),
  mcpTool<{ slug: string; edge_id: string }>({
    name: 'architecture_remove_edge',
    description:
      'Remove a manual edge; computed lineage edges cannot be removed (REST answers 204: DELETE /api/architectures/:slug/edges/:edgeId). Answers {slug, edge_id, removed: true}.',
    input: args({ ...slug, edge_id: idArg('The edge id.') }, ['slug', 'edge_id']),
    output: obj({ slug: str, edge_id: str, removed: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      const arch = await removeEdge(ctx, a.slug, a.edge_id);
      return { slug: arch.slug, edge_id: a.edge_id, removed: true };
    },
  }),
  mcpTool<{ slug: string; name?: string; description?: string; visibility?: string }>({
    name: 'architecture_update',
    description:
      "Change an architecture's name, description or visibility (owner or team editor; the slug never changes). Same body as PATCH /api/architectures/:slug.",
    input: argsOf(slug, architectureInputs.update),
    output: architectureSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { slug: s, ...patch }) => architectureBodyOf(ctx, await updateArchitecture(ctx, s, patch)),
  }),
  mcpTool<{ slug: string }>({
    name: 'architecture_delete',
    description:
      'Delete an architecture with its nodes and edges (owner; team owner or admin). REST answers 204: DELETE /api/architectures/:slug. Answers {slug, deleted: true}.',
    input: args(slug, ['slug']),
    output: obj({ slug: str, deleted: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      await removeArchitecture(ctx, a.slug);
      return { slug: a.slug, deleted: true };
    },
  }),
  mcpTool<{ team_id: string; limit?: number; offset?: number }>({
    name: 'team_architectures',
    description: "A team's architectures, newest first, with node and edge counts. Same body as GET /api/teams/:id/architectures.",
    input: args({ ...teamIdArg, ...pageArgs }, ['team_id']),
    output: architectureContract.teamArchitectures.response[200],
    readOnly: true,
    handler: (ctx, a) => teamArchitecturesBody(ctx, a.team_id, a),
  }),
];
