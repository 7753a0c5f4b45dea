import { arrayOf, bool, dateTime, errors, freeObject, idArg, int, nullable, obj, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { OperationStatus } from './tool-operation.entity';
import { toolDefinitions } from './tools';
import { toolTypes } from './tool-types';

const tags = ['tools'];

const operationProps = {
  operation_id: uuid,
  tool_type: { type: 'string', enum: [...toolTypes] },
  status: { type: 'string', enum: Object.values(OperationStatus) },
  step: nullable(int),
  total_steps: int,
  step_title: nullable(str),
  prompt: nullable(str),
  submission_schema: nullable(freeObject),
  done: bool,
  result: { ...nullable(freeObject), description: '`{blueprint_ids}` (NEW/INPLACE tools) or `{report}` (REPORT tools) once done' },
  source_blueprint_ids: arrayOf(uuid),
  params: freeObject,
  created_at: dateTime,
  updated_at: dateTime,
};
/** Start and submit answer the next step's single-use token (null once done). */
const withToken = obj({ ...operationProps, token: nullable(str) });
const withoutToken = obj(operationProps);

/** The most sources any tool takes. */
const maxSources = Math.max(...[...toolDefinitions.values()].map((d) => d.sources.max));

/** What starting an operation takes: checked by the service, the REST body and the MCP tool's arguments. */
export const startInput = obj(
  {
    tool_type: { type: 'string', enum: [...toolTypes], description: 'Which of the 25 tools to run.' },
    source_blueprint_ids: {
      type: 'array',
      items: idArg('A blueprint id or slug.'),
      maxItems: maxSources,
      description: 'The source blueprints, in order (how many depends on tool_type).',
    },
    params: { ...freeObject, description: "The tool's parameters, e.g. {language, framework} for transmute, {seed, rate} for mutate." },
  },
  ['source_blueprint_ids', 'params'],
);

/** What submitting a step takes. */
export const submitInput = obj({
  token: { type: 'string', minLength: 1, maxLength: 200 },
  submission: { ...freeObject, description: "An object satisfying the step's submission_schema." },
});

export const operationContract = {
  start: {
    summary: 'Start a tool operation: step 1 with its prompt, submission schema and token',
    tags,
    body: serviceChecked(startInput, { requireObject: true }),
    response: { 201: withToken, ...errors(403) },
  },
  submit: {
    summary: "Submit the current step's answer with its token; answers the next step (or the result)",
    tags,
    params: idParam('operationId'),
    body: serviceChecked(submitInput, { requireObject: true }),
    response: { 200: withToken, ...errors(403, 409) },
  },
  get: { summary: 'An operation (without its token)', tags, params: idParam('operationId'), response: { 200: withoutToken } },
  cancel: { summary: 'Cancel an active operation', tags, params: idParam('operationId'), response: { 200: withoutToken, ...errors(409) } },
};
