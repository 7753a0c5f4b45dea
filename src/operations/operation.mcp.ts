import { args, argsOf, idArg } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { cancelOperation, getOperation, startOperation, submitStep } from './operation.service';
import { operationContract, startInput, submitInput } from './operation.contract';
import { toOperationBody } from './operation.wire';
import { toolDefinitions } from './tools';

const sourcesText = ({ min, max }: { min: number; max: number }) => (min === max ? `${min}` : max >= 99 ? `${min}+` : `${min}-${max}`);

/** One line per tool type, from the definitions themselves, so the description cannot go stale. */
const toolCatalogue = [...toolDefinitions.values()].map((d) => `- ${d.type} (${sourcesText(d.sources)} sources, ${d.output}): ${d.summary}`).join('\n');

const operationId = { operation_id: idArg('The operation_id a start answered.') };

/** Tool operations as MCP tools: the same services and bodies as `/api/tools/operations`. */
export const operationMcpTools = [
  mcpTool<{ tool_type: string; source_blueprint_ids?: string[]; params?: Record<string, unknown> }>({
    name: 'tool_operation_start',
    description:
      'Start a tool operation. Answers the first step: a prompt, the submission_schema your submission must satisfy and a single-use token. ' +
      'Then call tool_operation_submit once per step until done is true; result then holds blueprint_ids (new or changed blueprints) or report. Tool types:\n' +
      toolCatalogue,
    input: argsOf({}, startInput),
    output: operationContract.start.response[201],
    readOnly: false,
    handler: async (ctx, a) =>
      toOperationBody(await startOperation(ctx, { toolType: a.tool_type, sourceBlueprintIds: a.source_blueprint_ids, params: a.params }), true),
  }),
  mcpTool<{ operation_id: string; token: string; submission: Record<string, unknown> }>({
    name: 'tool_operation_submit',
    description:
      'Submit the current step of an operation with the token the previous answer gave. Answers the next prompt and a new token, or (done: true) the result. A used or foreign token is STALE_STEP_TOKEN and changes nothing.',
    input: argsOf(operationId, submitInput),
    output: operationContract.start.response[201],
    readOnly: false,
    handler: async (ctx, a) => toOperationBody(await submitStep(ctx, a.operation_id, a.token, a.submission), true),
  }),
  mcpTool<{ operation_id: string }>({
    name: 'tool_operation_status',
    description: 'Status, current step and result of one of your operations (no token). Same body as GET /api/tools/operations/:id.',
    input: args(operationId, ['operation_id']),
    output: operationContract.get.response[200],
    readOnly: true,
    handler: async (ctx, a) => toOperationBody(await getOperation(ctx, a.operation_id), false),
  }),
  mcpTool<{ operation_id: string }>({
    name: 'tool_operation_cancel',
    description: 'Cancel one of your active operations; its tokens stop working and nothing is written.',
    input: args(operationId, ['operation_id']),
    output: operationContract.get.response[200],
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => toOperationBody(await cancelOperation(ctx, a.operation_id), false),
  }),
];
