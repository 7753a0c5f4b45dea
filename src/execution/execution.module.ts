import { moveOwnedRows, principalClaimed } from '../claims/claim.hooks';
import type { AreaModule } from '../platform/area';
import { on } from '../platform/sql/tx-hooks';
import { ExecutionResolver, BlueprintExecutionResolver } from './execution.resolver';
import { executionRoutes } from './execution.routes';
import { executionMcpTools } from './execution.mcp';
import { executionIdleSweep } from './execution.sweep';

/** The execution area: everything it adds to the app. */
export const executionModule: AreaModule = {
  name: 'execution',
  resolvers: [ExecutionResolver, BlueprintExecutionResolver],
  routes: executionRoutes,
  mcpTools: executionMcpTools,
  jobs: [executionIdleSweep],
  hooks: [on(principalClaimed, moveOwnedRows('runs', 'execution_run', 'principal_id'))],
};
