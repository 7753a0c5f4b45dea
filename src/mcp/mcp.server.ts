import type { FastifyBaseLogger } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { assertAllowed } from '../platform/graphql/access-policy';
import type { RequestContext } from '../platform/context';
import { AppError, errorBody, internalError, invalidAll, knownError, publicError, type ErrorBody } from '../platform/errors';
import { issuesFrom, validatorFor } from '../platform/json-schema';
import { ownTurn } from '../platform/live/fanout';
import { mcpInstructions } from './instructions';
import { toolInput, type McpToolDefinition } from '../platform/mcp-tool';
import type { Limits } from '../platform/config';

export const MCP_SERVER_INFO = { name: 'blueprint-workshop', version: '0.1.0' };

/** The `tools/list` entry of a definition: its schemas (page bounds from `limits`) and annotations. */
export function toolListing(tool: McpToolDefinition, limits: Limits): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: toolInput(tool.input, limits) as Tool['inputSchema'],
    ...(tool.output ? { outputSchema: tool.output as Tool['outputSchema'] } : {}),
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: tool.readOnly ? false : tool.destructive === true,
      idempotentHint: tool.readOnly || tool.idempotent === true,
      openWorldHint: false,
    },
  };
}

function result(body: unknown, isError = false): CallToolResult {
  const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

/** A tool error: the error body of docs/api.md, flagged so the agent reads it and reacts (never a protocol error). */
function errorResult(body: ErrorBody): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** Arguments checked against the advertised schema; issues name the argument (`limit`, `params/seed`). */
function checkArguments(tool: McpToolDefinition, raw: unknown, limits: Limits): Record<string, unknown> {
  const value = raw ?? {};
  const validate = validatorFor(toolInput(tool.input, limits));
  if (validate(value)) return value as Record<string, unknown>;
  const issues = issuesFrom(validate.errors, '').map((i) => ({ ...i, path: i.path.replace(/^\//, '') || 'arguments' }));
  throw invalidAll(issues);
}

/** MCP resources an area serves (read as the caller; what the caller may not read is not found). */
export interface McpResources {
  templates: ResourceTemplate[];
  list(ctx: RequestContext): Promise<Resource[]>;
  /** The resource, or null when there is none the caller may read (never a hint that it exists). */
  read(ctx: RequestContext, uri: string): Promise<ReadResourceResult | null>;
}

/** An MCP prompt: its listing and the messages it gives for the caller's arguments. */
export interface McpPromptDefinition {
  prompt: Prompt;
  get(ctx: RequestContext, args: Record<string, string>): Promise<GetPromptResult>;
}

export interface McpExtras {
  resources?: McpResources;
  prompts?: McpPromptDefinition[];
}

/** A service error as a JSON-RPC error of a resource or prompt request (the section 5 body in `data`). */
function protocolError(err: unknown, ctx: RequestContext): McpError {
  const known = knownError(err, ctx.config.database.retryAfterSeconds);
  if (!known) return new McpError(ErrorCode.InternalError, 'Internal server error', errorBody(internalError(ctx.requestId)));
  const code = known.code === 'VALIDATION_FAILED' ? ErrorCode.InvalidParams : known.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidRequest;
  return new McpError(code, known.message, errorBody(known));
}

/** The MCP specification's "Resource not found" error code. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * The SDK's JSON Schema validator (for elicitation, which no tool here uses), made once: by default every
 * `Server` builds its own Ajv instance, about 0.6 ms of each MCP request's CPU.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/**
 * A server bound to one request's context: tools run as the caller, with the caller's loaders. Every call
 * is logged with the tool, the principal and the outcome (the error code when it failed).
 */
export function mcpServerFor(ctx: RequestContext, tools: readonly McpToolDefinition[], log: FastifyBaseLogger, extras: McpExtras = {}): Server {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server(MCP_SERVER_INFO, {
    jsonSchemaValidator: sharedValidator,
    capabilities: {
      tools: { listChanged: false },
      ...(extras.resources ? { resources: { listChanged: false } } : {}),
      ...(extras.prompts ? { prompts: { listChanged: false } } : {}),
    },
    instructions: mcpInstructions,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => toolListing(t, ctx.config.limits)) }));
  const resources = extras.resources;
  if (resources) {
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: resources.templates }));
    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      try {
        return { resources: await resources.list(ctx) };
      } catch (err) {
        throw protocolError(err, ctx);
      }
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      let found: ReadResourceResult | null;
      try {
        found = await resources.read(ctx, request.params.uri);
      } catch (err) {
        throw protocolError(err, ctx);
      }
      if (!found) throw new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri: request.params.uri });
      return found;
    });
  }
  const prompts = new Map((extras.prompts ?? []).map((p) => [p.prompt.name, p]));
  if (extras.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...prompts.values()].map((p) => p.prompt) }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      const prompt = prompts.get(request.params.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `No prompt named ${JSON.stringify(request.params.name)}`);
      const args = request.params.arguments ?? {};
      for (const a of prompt.prompt.arguments ?? [])
        if (a.required && !args[a.name]) throw new McpError(ErrorCode.InvalidParams, `The prompt needs the argument ${a.name}`);
      try {
        return await prompt.get(ctx, args);
      } catch (err) {
        throw protocolError(err, ctx);
      }
    });
  }
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    const principal = ctx.viewer ? { principal_id: ctx.viewer.principalId, principal_kind: ctx.viewer.kind } : { principal_id: null };
    const tool = byName.get(name);
    try {
      if (!tool) throw new AppError('NOT_FOUND', `No tool named ${JSON.stringify(name)}; tools/list names them all`);
      assertAllowed(ctx.viewer, { public: false, write: !tool.readOnly });
      const body = await tool.handler(ctx, checkArguments(tool, request.params.arguments, ctx.config.limits));
      // Building, checking and sending the answer (the body twice: text and structured) is most of a call's
      // CPU; calls whose reads return together take their turns one at a time (issue 24 finding 1).
      await ownTurn();
      log.info({ mcp_tool: name, ...principal, outcome: 'ok' }, `mcp ${name} ok`);
      return result(body);
    } catch (err) {
      // A service error is its own body, a database outage UNAVAILABLE, anything else masked (never the
      // driver's message, which may quote SQL), as over REST.
      const error = publicError(err, ctx.requestId, ctx.config.database.retryAfterSeconds, (cause) =>
        log.error({ err: cause, mcp_tool: name, ...principal, outcome: 'internal', requestId: ctx.requestId }, `mcp ${name} failed`),
      );
      if (error.code !== 'INTERNAL') log.info({ mcp_tool: name, ...principal, outcome: 'error', code: error.code }, `mcp ${name} ${error.code}`);
      return errorResult(errorBody(error));
    }
  });
  return server;
}
