import type { ToolDefinition } from '../tool-definition';
import type { ToolType } from '../tool-types';
import { composeTool } from './compose.tool';
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
import { amplifyTool } from './amplify.tool';
import { breedTool } from './breed.tool';
import { distillTool } from './distill.tool';
import { intersectTool } from './intersect.tool';
import { mutateTool } from './mutate.tool';
import { shatterTool } from './shatter.tool';
import { spliceTool } from './splice.tool';
import { styleTransferTool } from './style-transfer.tool';
import { subtractTool } from './subtract.tool';
import { transmuteTool } from './transmute.tool';
import { weaveTool } from './weave.tool';

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
    breedTool,
    spliceTool,
    shatterTool,
    weaveTool,
    transmuteTool,
    distillTool,
    amplifyTool,
    styleTransferTool,
    subtractTool,
    intersectTool,
    mutateTool,
    composeTool,
  ].map((t) => [t.type, t as ToolDefinition]),
);
