import type { AreaModule } from '../platform/area';
import { TeamResolver } from './team.resolver';
import { teamRoutes } from './team.routes';

/** The teams area: everything it adds to the app. */
export const teamsModule: AreaModule = {
  name: 'teams',
  resolvers: [TeamResolver],
  routes: teamRoutes,
};
