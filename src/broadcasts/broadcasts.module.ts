import type { AreaModule } from '../platform/area';
import { BroadcastResolver, BlueprintBroadcastResolver } from './broadcast.resolver';
import { BlueprintActivityResolver } from './activity.resolver';
import { broadcastRoutes } from './broadcast.routes';

/** The broadcasts area: everything it adds to the app. */
export const broadcastsModule: AreaModule = {
  name: 'broadcasts',
  resolvers: [BroadcastResolver, BlueprintBroadcastResolver, BlueprintActivityResolver],
  routes: broadcastRoutes,
};
