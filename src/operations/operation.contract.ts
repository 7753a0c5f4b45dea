import { arrayOf, bool, dateTime, errors, freeObject, int, nullable, obj, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { OperationStatus } from './tool-operation.entity';
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

export const operationContract = {
  start: {
    summary: 'Start a tool operation: step 1 with its prompt, submission schema and token',
    tags,
    body: serviceChecked(
      obj(
        {
          tool_type: { type: 'string', enum: [...toolTypes] },
          source_blueprint_ids: { type: 'array', items: uuid, description: 'the sources, by id (0 to 5 depending on the tool)' },
          params: { ...freeObject, description: "the tool's parameters (e.g. language/framework for create and transmute)" },
        },
        ['source_blueprint_ids', 'params'],
      ),
      { requireObject: true },
    ),
    response: { 201: withToken, ...errors(403) },
  },
  submit: {
    summary: "Submit the current step's answer with its token; answers the next step (or the result)",
    tags,
    params: idParam('operationId'),
    body: serviceChecked(obj({ token: str, submission: { description: "JSON matching the step's submission_schema" } }), { requireObject: true }),
    response: { 200: withToken, ...errors(403, 409) },
  },
  get: { summary: 'An operation (without its token)', tags, params: idParam('operationId'), response: { 200: withoutToken } },
  cancel: { summary: 'Cancel an active operation', tags, params: idParam('operationId'), response: { 200: withoutToken, ...errors(409) } },
};
