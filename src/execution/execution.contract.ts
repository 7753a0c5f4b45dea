import { bool, dateTime, errors, int, nullable, num, obj, page, pageQuerySchema, serviceChecked, str, strings, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { ExecutionStatus } from './execution-run.entity';
import { MAX_NOTES_LENGTH } from './execution.service';

const tags = ['execution'];

const stepContent = obj({ key: str, module: obj({ key: str, name: str, kind: str }), title: str, instructions: str, acceptance: strings });
const runSchema = obj({
  id: uuid,
  blueprint_id: uuid,
  principal_id: uuid,
  status: { type: 'string', enum: Object.values(ExecutionStatus) },
  total_steps: int,
  steps_reached: int,
  notes: nullable(str),
  started_at: dateTime,
  last_step_at: nullable(dateTime),
  ended_at: nullable(dateTime),
});
/** A single run also shows the system prompt it started with. */
const runWithPromptSchema = obj({ ...(runSchema.properties as Record<string, object>), system_prompt: str });
const statsSchema = obj({ started: int, completed: int, failed: int, abandoned: int, running: int, success_rate: nullable(num) });
const stepParams = {
  type: 'object',
  required: ['id', 'n'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, n: { type: 'string', maxLength: 20, description: 'step number, 1..total_steps' } },
};

/** What reporting a run's end takes: checked by the service, the REST body and the MCP tool's arguments. */
export const reportInput = obj(
  { status: { type: 'string', enum: ['completed', 'failed', 'abandoned'] }, notes: { type: 'string', maxLength: MAX_NOTES_LENGTH } },
  ['notes'],
);

/** A step as an MCP tool names it (REST carries `n` in the path and the token in the query). */
export const stepInput = obj({
  n: { type: 'integer', minimum: 1, maximum: 100_000, description: 'The step number, 1-based.' },
  token: { type: 'string', minLength: 1, maxLength: 200 },
});

export const executionContract = {
  start: {
    summary: 'Start a run: system prompt, every stage token and step 1',
    tags,
    params: idParam('id'),
    response: {
      200: obj({
        run_id: uuid,
        system_prompt: str,
        total_steps: int,
        stage_tokens: strings,
        step: stepContent,
        next_token: str,
        dn: { type: 'boolean', const: false },
      }),
      ...errors(409),
    },
  },
  step: {
    summary: 'Step n of a run, opened by its stage token (safe to repeat); `dn` on the last step completes the run',
    tags,
    params: stepParams,
    querystring: { type: 'object', properties: { token: { type: 'string', description: "step n's stage token" } } },
    response: { 200: obj({ run_id: uuid, n: int, step: stepContent, dn: bool, next_token: nullable(str) }), ...errors(409) },
  },
  history: {
    summary: "A blueprint's execution runs, newest first, with its stats",
    tags,
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(runSchema, { stats: statsSchema }) },
  },
  run: { summary: 'One execution run (its runner or the blueprint owner)', tags, params: idParam('runId'), response: { 200: runWithPromptSchema } },
  report: {
    summary:
      'End a running run as failed or abandoned, with notes (its runner); completed only once its last step was reached (else 409); a run that has ended is 409',
    tags,
    params: idParam('runId'),
    body: serviceChecked(reportInput, { requireObject: true }),
    response: { 200: runSchema, ...errors(403, 409) },
  },
};
