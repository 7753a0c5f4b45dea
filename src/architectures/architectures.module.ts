import { blueprintDeleted, blueprintShownChanged } from '../blueprints/blueprint.hooks';
import { moveOwnedRows, principalClaimed } from '../claims/claim.hooks';
import type { AreaModule } from '../platform/area';
import { on } from '../platform/sql/tx-hooks';
import { removeNodesOfDeletedBlueprint, touchNodesOfChangedBlueprint } from './architecture.blueprint-hooks';
import { architectureMcpTools } from './architecture.mcp';
import { ArchitectureLifecycleResolver } from './architecture-lifecycle.resolver';
import {
  ArchitectureChangeResolver,
  ArchitectureResolver,
  BlueprintCardOwnerResolver,
  PrincipalArchitecturesResolver,
  TeamArchitecturesResolver,
} from './architecture.resolver';
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
    ArchitectureChangeResolver,
  ],
  routes: architectureRoutes,
  mcpTools: architectureMcpTools,
  hooks: [
    on(blueprintDeleted, removeNodesOfDeletedBlueprint),
    on(blueprintShownChanged, touchNodesOfChangedBlueprint),
    on(principalClaimed, moveOwnedRows('architectures', 'architecture', 'owner_id')),
  ],
};
