import { moveOwnedRows, principalClaimed } from '../claims/claim.hooks';
import type { AreaModule } from '../platform/area';
import { on } from '../platform/sql/tx-hooks';
import { operationMcpTools } from './operation.mcp';
import { OperationResolver } from './operation.resolver';
import { operationRoutes } from './operation.routes';

/** The operations area: everything it adds to the app. */
export const operationsModule: AreaModule = {
  name: 'operations',
  resolvers: [OperationResolver],
  routes: operationRoutes,
  mcpTools: operationMcpTools,
  hooks: [on(principalClaimed, moveOwnedRows('operations', 'tool_operation', 'principal_id'))],
};
