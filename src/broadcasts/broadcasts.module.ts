import type { AreaModule } from '../platform/area';
import { broadcastMcpTools } from './broadcast.mcp';
import { BroadcastResolver, BlueprintBroadcastResolver, resolveInboxEventsDirectly } from './broadcast.resolver';
import { BlueprintActivityResolver } from './activity.resolver';
import { broadcastRoutes } from './broadcast.routes';

/** The broadcasts area: everything it adds to the app. */
export const broadcastsModule: AreaModule = {
  name: 'broadcasts',
  resolvers: [BroadcastResolver, BlueprintBroadcastResolver, BlueprintActivityResolver],
  routes: broadcastRoutes,
  mcpTools: broadcastMcpTools,
  schemaHooks: [resolveInboxEventsDirectly],
};
