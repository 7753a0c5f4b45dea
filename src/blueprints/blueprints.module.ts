import type { AreaModule } from '../platform/area';
import { BlueprintResolver } from './blueprint.resolver';
import { NodeResolver } from './node.resolver';
import { blueprintRoutes } from './blueprint.routes';

/** The blueprints area: everything it adds to the app. */
export const blueprintsModule: AreaModule = {
  name: 'blueprints',
  resolvers: [BlueprintResolver, NodeResolver],
  routes: blueprintRoutes,
};
