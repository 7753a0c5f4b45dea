import type { AreaModule } from '../platform/area';
import { AuthResolver } from './auth.resolver';
import { authRoutes } from './auth.routes';

/** The auth area: everything it adds to the app. */
export const authModule: AreaModule = {
  name: 'auth',
  resolvers: [AuthResolver],
  routes: authRoutes,
};
