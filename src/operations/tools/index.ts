import type { ToolDefinition } from '../tool-definition';
import type { ToolType } from '../tool-types';
import { createTool } from './create.tool';
import { amplifyTool } from './amplify.tool';
import { breedTool } from './breed.tool';
import { distillTool } from './distill.tool';
import { intersectTool } from './intersect.tool';
import { mutateTool } from './mutate.tool';
import { shatterTool } from './shatter.tool';
import { spliceTool } from './splice.tool';
import { styleTransferTool } from './style_transfer.tool';
import { subtractTool } from './subtract.tool';
import { transmuteTool } from './transmute.tool';
import { weaveTool } from './weave.tool';

/** Tool types the engine can run. Each is one declarative definition. */
export const toolDefinitions: ReadonlyMap<ToolType, ToolDefinition> = new Map<ToolType, ToolDefinition>(
  [
    createTool,
    // NEW-output tools (one file each)
    breedTool, spliceTool, shatterTool, weaveTool, transmuteTool, distillTool, amplifyTool, styleTransferTool, subtractTool, intersectTool, mutateTool,
  ].map((t) => [t.type, t as ToolDefinition]),
);
