import { cardSchema } from '../blueprints/blueprint.contract';
import { arrayOf, bool, dateTime, errors, int, nullable, obj, page, pageQuerySchema, serviceChecked, str, strings, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';

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

export const proposalContract = {
  open: {
    summary: 'Propose a descendant’s changes to this blueprint (the source’s owner or team editor)',
    tags,
    params: idParam('id'),
    body: serviceChecked(obj({ source_blueprint_id: str, title: str, body: str }, ['body'])),
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
    body: serviceChecked(obj({ body: str, module_key: str, step_key: str }, ['module_key', 'step_key'])),
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
    body: serviceChecked({ type: 'object', description: '{resolutions?: [{kind, key, take: ours|theirs|custom, value?}]}' }),
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
