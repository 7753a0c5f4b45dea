import { cardSchema } from '../blueprints/blueprint.contract';
import { descriptionField, nameField, withDefault } from '../platform/field-schemas';
import type { JsonSchema } from '../platform/json-schema';
import { teamInputs } from '../teams/team.contract';
import { visibilityField } from '../blueprints/blueprint.contract';
import { arrayOf, bool, dateTime, errors, int, nullable, num, obj, pageQuerySchema, page, serviceChecked, str, uuid, noContent } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { EdgeType, manualEdgeTypes } from './architecture.entity';

/** The formats an architecture exports to (export.ts writes them). */
export const exportFormats = ['mermaid', 'dot', 'json'] as const;

const tags = ['architectures'];
const slugParam = idParam('slug');
const subjectParams = (name: string) => ({
  type: 'object',
  required: ['slug', name],
  properties: { slug: { type: 'string', minLength: 1, maxLength: 200 }, [name]: { type: 'string', minLength: 1, maxLength: 200 } },
});
/** Canvas coordinates are bounded so that clients can draw them. */
export const COORDINATE_MAX = 1_000_000;
const coordinate = { type: 'number', minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX };

/** What the architecture operations take, checked by the services and advertised as REST bodies and MCP arguments. */
export const architectureInputs: Record<'create' | 'update' | 'addNode' | 'addEdge' | 'layout' | 'transfer', JsonSchema> = {
  create: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'visibility'],
    properties: { name: nameField, description: withDefault(descriptionField, ''), visibility: visibilityField },
  },
  /** A metadata patch: at least one field; the slug never changes. */
  update: { ...obj({ name: nameField, description: descriptionField, visibility: visibilityField }, ['name', 'description', 'visibility']), minProperties: 1 },
  addNode: {
    type: 'object',
    additionalProperties: false,
    required: ['blueprint_id'],
    properties: { blueprint_id: { type: 'string', format: 'uuid' }, position_x: coordinate, position_y: coordinate },
  },
  addEdge: {
    type: 'object',
    additionalProperties: false,
    required: ['source_node_id', 'target_node_id', 'edge_type'],
    properties: {
      source_node_id: { type: 'string', minLength: 1, maxLength: 100 },
      target_node_id: { type: 'string', minLength: 1, maxLength: 100 },
      edge_type: { type: 'string', enum: [...manualEdgeTypes] },
      label: { type: ['string', 'null'], maxLength: 200 },
    },
  },
  /** Every node's new position: all or nothing. */
  layout: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['nodeId', 'position'],
      properties: {
        nodeId: { type: 'string', minLength: 1, maxLength: 100 },
        position: { type: 'object', additionalProperties: false, required: ['x', 'y'], properties: { x: coordinate, y: coordinate } },
      },
    },
  },
  transfer: teamInputs.transfer,
};

export const nodeBodySchema = obj({
  id: str,
  blueprint_id: nullable(uuid),
  position_x: num,
  position_y: num,
  blueprint: nullable(cardSchema),
  redacted: bool,
});
export const edgeBodySchema = obj({
  id: str,
  source_node_id: str,
  target_node_id: str,
  edge_type: { type: 'string', enum: Object.values(EdgeType) },
  label: nullable(str),
  computed: bool,
});
const head = {
  id: uuid,
  slug: str,
  name: str,
  description: str,
  visibility: { type: 'string', enum: ['public', 'private'] },
  owner_id: uuid,
  team_id: nullable(uuid),
};
export const architectureBodySchema = obj({
  ...head,
  nodes: arrayOf(nodeBodySchema),
  edges: arrayOf(edgeBodySchema),
  created_at: dateTime,
  updated_at: dateTime,
});
export const architectureSummarySchema = obj({ ...head, node_count: int, edge_count: int, created_at: dateTime, updated_at: dateTime });

export const architectureContract = {
  create: {
    summary: 'Create an architecture (no nodes yet)',
    tags,
    body: serviceChecked(architectureInputs.create),
    response: { 201: architectureBodySchema },
  },
  list: {
    summary: 'Public architectures, newest first (public, no token)',
    tags,
    security: [],
    querystring: pageQuerySchema,
    response: { 200: page(architectureSummarySchema) },
  },
  get: {
    summary: 'One architecture with nodes and edges (public ones need no token)',
    tags,
    security: [],
    params: slugParam,
    response: { 200: architectureBodySchema },
  },
  update: {
    summary: 'Change name, description or visibility (editors); the slug never changes',
    tags,
    params: slugParam,
    body: serviceChecked(architectureInputs.update),
    response: { 200: architectureBodySchema, ...errors(403) },
  },
  remove: { summary: 'Delete an architecture (owner)', tags, params: slugParam, response: { 204: noContent, ...errors(403) } },
  addNode: {
    summary: 'Add a blueprint as a node (editors)',
    tags,
    params: slugParam,
    body: serviceChecked(architectureInputs.addNode),
    response: { 201: nodeBodySchema, ...errors(403, 409) },
  },
  addEdge: {
    summary: 'Add an edge between two nodes (editors; custom edges need a label)',
    tags,
    params: slugParam,
    body: serviceChecked(architectureInputs.addEdge),
    response: { 201: edgeBodySchema, ...errors(403, 409) },
  },
  layout: {
    summary: 'Move nodes: all or nothing; answers the architecture',
    tags,
    params: slugParam,
    body: serviceChecked(architectureInputs.layout),
    response: { 200: architectureBodySchema, ...errors(403) },
  },
  teamArchitectures: {
    summary: "The team's architectures (members)",
    // Listed with the team endpoints in the reference.
    tags: ['teams'],
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(architectureSummarySchema) },
  },
  transfer: {
    summary: 'Move the architecture into a team, or out of it with team_id null (owner)',
    tags,
    params: slugParam,
    body: serviceChecked(architectureInputs.transfer),
    response: { 200: architectureBodySchema, ...errors(403) },
  },
  removeNode: { summary: 'Remove a node and its edges (editors)', tags, params: subjectParams('nodeId'), response: { 204: noContent, ...errors(403) } },
  removeEdge: {
    summary: 'Remove a drawn edge (lineage edges are computed: 403)',
    tags,
    params: subjectParams('edgeId'),
    response: { 204: noContent, ...errors(403) },
  },
  export: {
    summary: 'The diagram as Mermaid, DOT or JSON (public ones need no token)',
    tags,
    security: [],
    params: slugParam,
    querystring: { type: 'object', properties: { format: { type: 'string', description: `one of ${exportFormats.join(', ')} (default json)` } } },
    response: {
      200: { type: 'string', description: 'text/vnd.mermaid, text/vnd.graphviz, or the architecture body as application/json text' },
    },
  },
};
