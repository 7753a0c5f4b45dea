import type { AreaModule } from '../platform/area';
import { claimMcpTools } from './claim.mcp';
import { ClaimResolver } from './claim.resolver';
import { claimRoutes } from './claim.routes';

/** The claims area (a person takes over an agent session's work): everything it adds to the app. */
export const claimsModule: AreaModule = {
  name: 'claims',
  resolvers: [ClaimResolver],
  routes: claimRoutes,
  mcpTools: claimMcpTools,
};
