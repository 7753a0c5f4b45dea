import type { NonEmptyArray } from 'type-graphql';
import { ArchitectureNodeResolver } from './architectures/architecture-node.resolver';
import { ArchitectureResolver } from './architectures/architecture.resolver';
import { architectureRoutes } from './architectures/architecture.routes';
import { authRoutes } from './auth/auth.routes';
import { AuthResolver } from './auth/auth.resolver';
import { BlueprintResolver } from './blueprints/blueprint.resolver';
import { blueprintRoutes } from './blueprints/blueprint.routes';
import { LineageResolver } from './lineage/lineage.resolver';
import { lineageRoutes } from './lineage/lineage.routes';
import { OperationResolver } from './operations/operation.resolver';
import { operationRoutes } from './operations/operation.routes';
import type { RouteModule } from './platform/routes';
import { RegistryResolver } from './registry/registry.resolver';
import { registryRoutes } from './registry/registry.routes';
import { TeamResolver } from './teams/team.resolver';
import { teamRoutes } from './teams/team.routes';

/** Every domain area's REST routes. Adding an area = adding it here and in `resolvers`. */
export const routeModules: RouteModule[] = [authRoutes, blueprintRoutes, lineageRoutes, registryRoutes, operationRoutes, teamRoutes, architectureRoutes];

/** Every domain area's GraphQL resolvers. */
export const resolvers: NonEmptyArray<Function> = [AuthResolver, BlueprintResolver, LineageResolver, RegistryResolver, OperationResolver, TeamResolver, ArchitectureResolver, ArchitectureNodeResolver];
