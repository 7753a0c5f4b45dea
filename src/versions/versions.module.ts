import type { AreaModule } from '../platform/area';
import { BlueprintVersionsResolver, VersionAuthorResolver } from './version.resolver';
import { versionRoutes } from './version.routes';

/** The versions area: everything it adds to the app. */
export const versionsModule: AreaModule = {
  name: 'versions',
  resolvers: [BlueprintVersionsResolver, VersionAuthorResolver],
  routes: versionRoutes,
};
