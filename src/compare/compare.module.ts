import type { AreaModule } from '../platform/area';
import { CompareResolver } from './compare.resolver';
import { compareRoutes } from './compare.routes';

/** The compare area: everything it adds to the app. */
export const compareModule: AreaModule = {
  name: 'compare',
  resolvers: [CompareResolver],
  routes: compareRoutes,
};
