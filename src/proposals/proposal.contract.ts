import { cardSchema } from '../blueprints/blueprint.contract';
import { arrayOf, bool, dateTime, errors, int, nullable, obj, page, pageQuerySchema, serviceChecked, str, strings, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import type { JsonSchema } from '../platform/json-schema';
import { conflictKindByWire } from './proposal.merge';

const person = obj({ id: uuid, name: str });
const keyChange = obj({ key: str, change: { type: 'string', enum: ['added', 'removed', 'changed'] }, fields: strings });
const jsonDiff = obj({ added: strings, removed: strings, changed: strings });
const anyValue = { description: 'the version on that side (null: absent there)' };

export const proposalBodySchema = obj({
  number: int,
  target: cardSchema,
  source: cardSchema,
  author: person,
  title: str,
  body: str,
  state: { type: 'string', enum: ['open', 'merged', 'closed'] },
  base_version: nullable(int),
  changes: obj({ modules: arrayOf(keyChange), steps: arrayOf(keyChange), steps_reordered: bool, configuration: jsonDiff, design_system: jsonDiff }),
  conflicts: arrayOf(
    obj({
      kind: { type: 'string', enum: ['module', 'step', 'configuration', 'design_system'] },
      key: str,
      reason: str,
      base: anyValue,
      ours: anyValue,
      theirs: anyValue,
    }),
  ),
  mergeable: bool,
  comment_count: int,
  created_at: dateTime,
  updated_at: dateTime,
  merged_at: nullable(dateTime),
  merged_by: nullable(person),
  merge_version: nullable(int),
});

export const commentBodySchema = obj({ id: uuid, author: person, body: str, module_key: nullable(str), step_key: nullable(str), created_at: dateTime });

const tags = ['proposals'];
const numberParams = {
  type: 'object',
  required: ['id', 'number'],
  properties: { ...idParam('id').properties, number: { type: 'string', minLength: 1, maxLength: 20, description: 'The proposal number (1, 2, ...)' } },
};

/** What opening a proposal takes: checked by the service, the REST body and the MCP tool's arguments. */
export const openInput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source_blueprint_id', 'title'],
  properties: {
    source_blueprint_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Your descendant blueprint whose changes you propose: id or slug.' },
    title: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    body: { type: 'string', maxLength: 20_000 },
  },
};

/** What a comment takes, anchored to a module or a step or to neither. */
export const commentInput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['body'],
  properties: {
    body: { type: 'string', minLength: 1, maxLength: 20_000, pattern: '\\S' },
    module_key: { type: 'string', minLength: 1, maxLength: 100 },
    step_key: { type: 'string', minLength: 1, maxLength: 100 },
  },
};

/** What a merge takes: a resolution per conflict. */
export const mergeInput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resolutions: {
      type: 'array',
      maxItems: 20_000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'key', 'take'],
        properties: {
          kind: { type: 'string', enum: Object.keys(conflictKindByWire) },
          key: { type: 'string', minLength: 1, maxLength: 1000 },
          take: { type: 'string', enum: ['ours', 'theirs', 'custom'] },
          value: { description: 'custom: the module or step (wire form, same key) or the JSON value' },
        },
      },
    },
  },
};

export const proposalContract = {
  open: {
    summary: 'Propose a descendant’s changes to this blueprint (the source’s owner or team editor)',
    tags,
    params: idParam('id'),
    body: serviceChecked(openInput),
    response: { 201: proposalBodySchema, ...errors(403) },
  },
  list: {
    summary: 'Proposals to this blueprint, newest first (state=open|merged|closed|all)',
    tags,
    params: idParam('id'),
    querystring: { ...pageQuerySchema, properties: { ...(pageQuerySchema.properties as object), state: { type: 'string' } } },
    response: { 200: page(proposalBodySchema) },
  },
  get: { summary: 'One proposal, its changes and conflicts against the current plans', tags, params: numberParams, response: { 200: proposalBodySchema } },
  comment: {
    summary: 'Comment on a proposal, optionally on a module or step',
    tags,
    params: numberParams,
    body: serviceChecked(commentInput),
    response: { 201: commentBodySchema },
  },
  comments: {
    summary: 'The comments of a proposal, oldest first',
    tags,
    params: numberParams,
    querystring: pageQuerySchema,
    response: { 200: page(commentBodySchema) },
  },
  merge: {
    summary: 'Merge a proposal (target owner or team editor), with a resolution per conflict',
    tags,
    params: numberParams,
    body: serviceChecked(mergeInput),
    response: { 200: proposalBodySchema, ...errors(403, 409) },
  },
  close: {
    summary: 'Close a proposal (author, target owner or editor)',
    tags,
    params: numberParams,
    response: { 200: proposalBodySchema, ...errors(403, 409) },
  },
  reopen: {
    summary: 'Reopen a closed proposal (author, target owner or editor)',
    tags,
    params: numberParams,
    response: { 200: proposalBodySchema, ...errors(403, 409) },
  },
};
