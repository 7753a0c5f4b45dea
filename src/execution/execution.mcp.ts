import { args, bool, idArg, int, nullable, num, obj, page, pageArgs, str, strings } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { MAX_NOTES_LENGTH, executionStep, reportExecution, startExecution } from './execution.service';
import { executionHistoryBody, executionRunBody, toRunBody, toStartBody, toStepBody } from './execution.wire';

const stepSchema = obj({ key: str, module: obj({ key: str, name: str, kind: str }), title: str, instructions: str, acceptance: strings });
const runSchema = obj({
  id: str,
  blueprint_id: str,
  principal_id: str,
  status: { type: 'string', enum: ['running', 'completed', 'failed', 'abandoned'] },
  total_steps: int,
  steps_reached: int,
  notes: nullable(str),
  started_at: str,
  last_step_at: nullable(str),
  ended_at: nullable(str),
});
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };
const runId = { run_id: idArg('The run_id execution start answered.') };

/** Execution as MCP tools: the same services and bodies as `/api/blueprints/:id/start`, `/step/:n` and `/api/executions`. */
export const executionMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_execute_start',
    description:
      "Start executing a blueprint: a new run with the system prompt, every stage token and step 1. next_token is step 1's own token: call blueprint_execute_step with n = 1 and next_token (it records step 1 and answers the token of step 2), carry out the step, then n = 2 with that answer's next_token, and so on until dn is true. Same body as GET /api/blueprints/:id/start.",
    input: args(blueprintId, ['blueprint_id']),
    output: obj({ run_id: str, system_prompt: str, total_steps: int, stage_tokens: strings, step: stepSchema, next_token: str, dn: bool }),
    readOnly: false,
    handler: async (ctx, a) => toStartBody(await startExecution(ctx, a.blueprint_id)),
  }),
  mcpTool<{ blueprint_id: string; n: number; token: string }>({
    name: 'blueprint_execute_step',
    description:
      "Step n of a run, with step n's token: the next_token of the previous answer (after blueprint_execute_start, n = 1 with its next_token). Answers next_token for step n + 1; dn is true on the last step, which completes the run. Same body as GET /api/blueprints/:id/step/:n.",
    input: args(
      {
        ...blueprintId,
        n: { type: 'integer', minimum: 1, maximum: 100_000, description: 'The step number, 1-based.' },
        token: { type: 'string', minLength: 1, maxLength: 200 },
      },
      ['blueprint_id', 'n', 'token'],
    ),
    output: obj({ run_id: str, n: int, step: stepSchema, dn: bool, next_token: nullable(str) }),
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toStepBody(await executionStep(ctx, a.blueprint_id, String(a.n), a.token)),
  }),
  mcpTool<{ run_id: string; status: string; notes?: string }>({
    name: 'execution_report',
    description:
      'Report how one of your runs ended, with notes: failed or abandoned while it runs; completed only once it reached its last step (dn), else CONFLICT. Same body as POST /api/executions/:runId/report.',
    input: args({ ...runId, status: { type: 'string', enum: ['completed', 'failed', 'abandoned'] }, notes: { type: 'string', maxLength: MAX_NOTES_LENGTH } }, [
      'run_id',
      'status',
    ]),
    output: runSchema,
    readOnly: false,
    handler: async (ctx, a) => toRunBody(await reportExecution(ctx, a.run_id, a.status, a.notes)),
  }),
  mcpTool<{ run_id: string }>({
    name: 'execution_get',
    description: 'One execution run (yours, or any run of a blueprint you own). Same body as GET /api/executions/:runId.',
    input: args(runId, ['run_id']),
    output: runSchema,
    readOnly: true,
    handler: (ctx, a) => executionRunBody(ctx, a.run_id),
  }),
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'execution_history',
    description:
      "A blueprint's execution runs, newest first (the owner sees every run, others their own), with its stats. Same body as GET /api/blueprints/:id/executions.",
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: {
      ...page(runSchema),
      properties: {
        ...(page(runSchema).properties as object),
        stats: obj({ started: int, completed: int, failed: int, abandoned: int, running: int, success_rate: nullable(num) }),
      },
    },
    readOnly: true,
    handler: (ctx, a) => executionHistoryBody(ctx, a.blueprint_id, a),
  }),
];
