import { args, bool, freeObject, idArg, int, nullable, obj, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { cancelOperation, getOperation, startOperation, submitStep } from './operation.service';
import { toOperationBody } from './operation.wire';
import { toolDefinitions } from './tools';
import { toolTypes } from './tool-types';

const sourcesText = ({ min, max }: { min: number; max: number }) => (min === max ? `${min}` : max >= 99 ? `${min}+` : `${min}-${max}`);
const maxSources = Math.max(...[...toolDefinitions.values()].map((d) => d.sources.max));

/** One line per tool type, from the definitions themselves, so the description cannot go stale. */
const toolCatalogue = [...toolDefinitions.values()].map((d) => `- ${d.type} (${sourcesText(d.sources)} sources, ${d.output}): ${d.summary}`).join('\n');

const operationSchema = (withToken: boolean) =>
  obj(
    {
      operation_id: str,
      tool_type: { type: 'string', enum: [...toolTypes] },
      status: { type: 'string', enum: ['active', 'completed', 'cancelled', 'failed', 'expired'] },
      step: { type: ['integer', 'null'] },
      total_steps: int,
      step_title: nullable(str),
      prompt: nullable(str),
      submission_schema: { type: ['object', 'null'] },
      ...(withToken ? { token: nullable(str) } : {}),
      done: bool,
      result: { type: ['object', 'null'] },
    },
    ['step', 'step_title', 'prompt', 'submission_schema', 'result'],
  );

const operationId = { operation_id: idArg('The operation_id a start answered.') };

/** Tool operations as MCP tools: the same services and bodies as `/api/tools/operations`. */
export const operationMcpTools = [
  mcpTool<{ tool_type: string; source_blueprint_ids?: string[]; params?: Record<string, unknown> }>({
    name: 'tool_operation_start',
    description:
      'Start a tool operation. Answers the first step: a prompt, the submission_schema your submission must satisfy and a single-use token. ' +
      'Then call tool_operation_submit once per step until done is true; result then holds blueprint_ids (new or changed blueprints) or report. Tool types:\n' +
      toolCatalogue,
    input: args(
      {
        tool_type: { type: 'string', enum: [...toolTypes], description: 'Which of the 25 tools to run.' },
        source_blueprint_ids: {
          type: 'array',
          items: idArg('A blueprint id or slug.'),
          maxItems: maxSources,
          description: 'The source blueprints, in order (how many depends on tool_type).',
        },
        params: { type: 'object', description: "The tool's parameters, e.g. {language, framework} for transmute, {seed, rate} for mutate." },
      },
      ['tool_type'],
    ),
    output: operationSchema(true),
    readOnly: false,
    handler: async (ctx, a) =>
      toOperationBody(await startOperation(ctx, { toolType: a.tool_type, sourceBlueprintIds: a.source_blueprint_ids, params: a.params }), true),
  }),
  mcpTool<{ operation_id: string; token: string; submission: Record<string, unknown> }>({
    name: 'tool_operation_submit',
    description:
      'Submit the current step of an operation with the token the previous answer gave. Answers the next prompt and a new token, or (done: true) the result. A used or foreign token is STALE_STEP_TOKEN and changes nothing.',
    input: args(
      {
        ...operationId,
        token: { type: 'string', minLength: 1, maxLength: 200 },
        submission: { ...freeObject, description: "An object satisfying the step's submission_schema." },
      },
      ['operation_id', 'token', 'submission'],
    ),
    output: operationSchema(true),
    readOnly: false,
    handler: async (ctx, a) => toOperationBody(await submitStep(ctx, a.operation_id, a.token, a.submission), true),
  }),
  mcpTool<{ operation_id: string }>({
    name: 'tool_operation_status',
    description: 'Status, current step and result of one of your operations (no token). Same body as GET /api/tools/operations/:id.',
    input: args(operationId, ['operation_id']),
    output: operationSchema(false),
    readOnly: true,
    handler: async (ctx, a) => toOperationBody(await getOperation(ctx, a.operation_id), false),
  }),
  mcpTool<{ operation_id: string }>({
    name: 'tool_operation_cancel',
    description: 'Cancel one of your active operations; its tokens stop working and nothing is written.',
    input: args(operationId, ['operation_id']),
    output: operationSchema(false),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => toOperationBody(await cancelOperation(ctx, a.operation_id), false),
  }),
];
