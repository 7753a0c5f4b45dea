import type { AreaModule } from '../platform/area';
import { TransferResolver } from './transfer.resolver';
import { transferMcpTools } from './transfer.mcp';
import { transferRoutes } from './transfer.routes';

/** Export and import for coding agents (docs/transfer.md). */
export const transferModule: AreaModule = {
  name: 'transfer',
  resolvers: [TransferResolver],
  routes: transferRoutes,
  mcpTools: transferMcpTools,
};
