import type { ToolDefinition } from '../tool-definition';
import type { ToolType } from '../tool-types';
import { composeTool } from './compose.tool';
import { createTool } from './create.tool';

/** Tool types the engine can run. Each is one declarative definition. */
export const toolDefinitions: ReadonlyMap<ToolType, ToolDefinition> = new Map<ToolType, ToolDefinition>(
  [createTool, composeTool].map((t) => [t.type, t as ToolDefinition]),
);
