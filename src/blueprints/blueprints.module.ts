import { moveOwnedRows, principalClaimed } from '../claims/claim.hooks';
import type { AreaModule } from '../platform/area';
import { on } from '../platform/sql/tx-hooks';
import { blueprintMcpTools } from './blueprint.mcp';
import { BlueprintLifecycleResolver } from './blueprint-lifecycle.resolver';
import { BlueprintResolver, PrincipalBlueprintsResolver, TeamBlueprintsResolver } from './blueprint.resolver';
import { NodeResolver } from './node.resolver';
import { blueprintRoutes } from './blueprint.routes';

/** The blueprints area: everything it adds to the app. */
export const blueprintsModule: AreaModule = {
  name: 'blueprints',
  resolvers: [BlueprintResolver, NodeResolver, BlueprintLifecycleResolver, TeamBlueprintsResolver, PrincipalBlueprintsResolver],
  routes: blueprintRoutes,
  mcpTools: blueprintMcpTools,
  hooks: [on(principalClaimed, moveOwnedRows('blueprints', 'blueprint', 'owner_id'))],
};
