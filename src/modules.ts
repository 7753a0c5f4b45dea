import type { NonEmptyArray } from 'type-graphql';
import { authRoutes } from './auth/auth.routes';
import { AuthResolver } from './auth/auth.resolver';
import { BlueprintResolver } from './blueprints/blueprint.resolver';
import { blueprintRoutes } from './blueprints/blueprint.routes';
import { BlueprintActivityResolver } from './broadcasts/activity.resolver';
import { BlueprintBroadcastResolver, BroadcastResolver } from './broadcasts/broadcast.resolver';
import { broadcastRoutes } from './broadcasts/broadcast.routes';
import { BlueprintChangelogResolver, ChangelogEntryResolver } from './changelog/changelog.resolver';
import { changelogRoutes } from './changelog/changelog.routes';
import { CompareResolver } from './compare/compare.resolver';
import { compareRoutes } from './compare/compare.routes';
import { LineageResolver } from './lineage/lineage.resolver';
import { lineageRoutes } from './lineage/lineage.routes';
import { OperationResolver } from './operations/operation.resolver';
import { operationRoutes } from './operations/operation.routes';
import type { RouteModule } from './platform/routes';
import { RegistryResolver } from './registry/registry.resolver';
import { registryRoutes } from './registry/registry.routes';

/** Every domain area's REST routes. Adding an area = adding it here and in `resolvers`. */
export const routeModules: RouteModule[] = [authRoutes, blueprintRoutes, lineageRoutes, registryRoutes, operationRoutes, changelogRoutes, broadcastRoutes, compareRoutes];

/** Every domain area's GraphQL resolvers. */
export const resolvers: NonEmptyArray<Function> = [AuthResolver, BlueprintResolver, LineageResolver, RegistryResolver, OperationResolver,
  ChangelogEntryResolver, BlueprintChangelogResolver, BroadcastResolver, BlueprintBroadcastResolver, BlueprintActivityResolver, CompareResolver];
