import type { AreaModule } from '../platform/area';
import { AccountResolver } from './account.resolver';
import { accountRoutes } from './account.routes';
import { AuthResolver, ProfileResolver } from './auth.resolver';
import { authRoutes } from './auth.routes';

/** The auth area (agent sessions, people's accounts and tokens): everything it adds to the app. */
export const authModule: AreaModule = {
  name: 'auth',
  resolvers: [AuthResolver, AccountResolver, ProfileResolver],
  routes: (app, deps) => {
    authRoutes(app, deps);
    accountRoutes(app, deps);
  },
};
