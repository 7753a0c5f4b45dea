import type { AreaModule } from '../platform/area';
import { architectureMcpTools } from './architecture.mcp';
import { ArchitectureLifecycleResolver } from './architecture-lifecycle.resolver';
import { ArchitectureResolver, BlueprintCardOwnerResolver, PrincipalArchitecturesResolver, TeamArchitecturesResolver } from './architecture.resolver';
import { ArchitectureNodeResolver } from './architecture-node.resolver';
import { architectureRoutes } from './architecture.routes';

/** The architectures area: everything it adds to the app. */
export const architecturesModule: AreaModule = {
  name: 'architectures',
  resolvers: [
    ArchitectureResolver,
    ArchitectureNodeResolver,
    ArchitectureLifecycleResolver,
    TeamArchitecturesResolver,
    PrincipalArchitecturesResolver,
    BlueprintCardOwnerResolver,
  ],
  routes: architectureRoutes,
  mcpTools: architectureMcpTools,
};
