import { z } from 'zod';
import { mcpTool } from '../platform/mcp-tool';
import { executionStep, reportExecution, startExecution } from './execution.service';
import { toRunBody, toStartBody, toStepBody } from './execution.wire';

/** Execution as MCP tools: the same services and bodies as `GET /api/blueprints/:id/start` and `/step/:n`. */
export const executionMcpTools = [
  mcpTool({
    name: 'blueprint_execute_start',
    description: 'Start executing a blueprint: the system prompt, all stage tokens and step 1.',
    input: { blueprint_id: z.string().min(1) },
    readOnly: false,
    handler: async (ctx, a) => toStartBody(await startExecution(ctx, a.blueprint_id)),
  }),
  mcpTool({
    name: 'blueprint_execute_step',
    description: 'Step n of a run, with the token the previous response gave. dn is true on the last step.',
    input: { blueprint_id: z.string().min(1), n: z.number().int(), token: z.string() },
    readOnly: false,
    handler: async (ctx, a) => toStepBody(await executionStep(ctx, a.blueprint_id, String(a.n), a.token)),
  }),
  mcpTool({
    name: 'execution_report',
    description: 'Report how one of your runs ended (completed or failed), with notes.',
    input: { run_id: z.string(), status: z.enum(['completed', 'failed']), notes: z.string().optional() },
    readOnly: false,
    handler: async (ctx, a) => toRunBody(await reportExecution(ctx, a.run_id, a.status, a.notes)),
  }),
];
