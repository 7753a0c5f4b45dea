import type { ToolDefinition } from '../tool-definition';
import type { ToolType } from '../tool-types';
import { createTool } from './create.tool';
import { differenceTool } from './difference.tool';
import { fuzzTool } from './fuzz.tool';
import { holographicDocTool } from './holographic-doc.tool';
import { inoculationTool } from './inoculation.tool';
import { lintTool } from './lint.tool';
import { phenotypingTool } from './phenotyping.tool';
import { pruneTool } from './prune.tool';
import { semanticRollbackTool } from './semantic-rollback.tool';
import { swarmPartitionTool } from './swarm-partition.tool';
import { topologicalSearchTool } from './topological-search.tool';
import { upstreamMergeTool } from './upstream-merge.tool';
import { upstreamShieldTool } from './upstream-shield.tool';

/** Tool types the engine can run. Each is one declarative definition. */
export const toolDefinitions: ReadonlyMap<ToolType, ToolDefinition> = new Map<ToolType, ToolDefinition>(
  [
    createTool,
    differenceTool,
    fuzzTool,
    inoculationTool,
    phenotypingTool,
    holographicDocTool,
    swarmPartitionTool,
    semanticRollbackTool,
    topologicalSearchTool,
    upstreamShieldTool,
    upstreamMergeTool,
    pruneTool,
    lintTool,
  ].map((t) => [t.type, t as ToolDefinition]),
);
