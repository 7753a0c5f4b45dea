import type { AreaModule } from '../platform/area';
import { teamMcpTools } from './team.mcp';
import { TeamResolver, ViewerTeamsResolver } from './team.resolver';
import { teamRoutes } from './team.routes';

/** The teams area: everything it adds to the app. */
export const teamsModule: AreaModule = {
  name: 'teams',
  resolvers: [TeamResolver, ViewerTeamsResolver],
  routes: teamRoutes,
  mcpTools: teamMcpTools,
};
