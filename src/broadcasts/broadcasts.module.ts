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
  gauges: [
    {
      name: 'inbox_unread_deliveries',
      help: 'Unread broadcast deliveries across all inboxes (the inbox backlog)',
      async read(deps) {
        const rows: Array<{ n: number }> = await deps.orm.em.getConnection().execute('select count(*)::int as n from inbox_delivery where read_at is null');
        return rows[0]?.n ?? 0;
      },
    },
  ],
};
