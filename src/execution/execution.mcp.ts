import { args, argsOf, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { executionContract, reportInput, stepInput } from './execution.contract';
import { executionStep, reportExecution, startExecution } from './execution.service';
import { executionHistoryBody, executionRunBody, toRunBody, toStartBody, toStepBody } from './execution.wire';

const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };
const runId = { run_id: idArg('The run_id execution start answered.') };

/** Execution as MCP tools: the same services and bodies as `/api/blueprints/:id/start`, `/step/:n` and `/api/executions`. */
export const executionMcpTools = [
  mcpTool<{ blueprint_id: string }>({
    name: 'blueprint_execute_start',
    description:
      "Start executing a blueprint: a new run with the system prompt, every stage token and step 1. next_token is step 1's own token: call blueprint_execute_step with n = 1 and next_token (it records step 1 and answers the token of step 2), carry out the step, then n = 2 with that answer's next_token, and so on until dn is true. Same body as GET /api/blueprints/:id/start.",
    input: args(blueprintId, ['blueprint_id']),
    output: executionContract.start.response[200],
    readOnly: false,
    handler: async (ctx, a) => toStartBody(await startExecution(ctx, a.blueprint_id)),
  }),
  mcpTool<{ blueprint_id: string; n: number; token: string }>({
    name: 'blueprint_execute_step',
    description:
      "Step n of a run, with step n's token: the next_token of the previous answer (after blueprint_execute_start, n = 1 with its next_token). Answers next_token for step n + 1; dn is true on the last step, which completes the run. Same body as GET /api/blueprints/:id/step/:n.",
    input: argsOf(blueprintId, stepInput),
    output: executionContract.step.response[200],
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toStepBody(await executionStep(ctx, a.blueprint_id, String(a.n), a.token)),
  }),
  mcpTool<{ run_id: string; status: string; notes?: string }>({
    name: 'execution_report',
    description:
      'Report how one of your runs ended, with notes: failed or abandoned while it runs; completed only once it reached its last step (dn), else CONFLICT. Same body as POST /api/executions/:runId/report.',
    input: argsOf(runId, reportInput),
    output: executionContract.report.response[200],
    readOnly: false,
    handler: async (ctx, a) => toRunBody(await reportExecution(ctx, a.run_id, a.status, a.notes)),
  }),
  mcpTool<{ run_id: string }>({
    name: 'execution_get',
    description: 'One execution run (yours, or any run of a blueprint you own). Same body as GET /api/executions/:runId.',
    input: args(runId, ['run_id']),
    output: executionContract.run.response[200],
    readOnly: true,
    handler: (ctx, a) => executionRunBody(ctx, a.run_id),
  }),
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'execution_history',
    description:
      "A blueprint's execution runs, newest first (the owner sees every run, others their own), with its stats. Same body as GET /api/blueprints/:id/executions.",
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: executionContract.history.response[200],
    readOnly: true,
    handler: (ctx, a) => executionHistoryBody(ctx, a.blueprint_id, a),
  }),
];
