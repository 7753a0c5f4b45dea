import type { NonEmptyArray } from 'type-graphql';
import { authRoutes } from './auth/auth.routes';
import { AuthResolver } from './auth/auth.resolver';
import { BlueprintResolver } from './blueprints/blueprint.resolver';
import { blueprintRoutes } from './blueprints/blueprint.routes';
import { NodeResolver } from './blueprints/node.resolver';
import { LineageResolver } from './lineage/lineage.resolver';
import { lineageRoutes } from './lineage/lineage.routes';
import { OperationResolver } from './operations/operation.resolver';
import { operationRoutes } from './operations/operation.routes';
import type { RouteModule } from './platform/routes';
import { RegistryResolver } from './registry/registry.resolver';
import { registryRoutes } from './registry/registry.routes';

/** Every domain area's REST routes. Adding an area = adding it here and in `resolvers`. */
export const routeModules: RouteModule[] = [authRoutes, blueprintRoutes, lineageRoutes, registryRoutes, operationRoutes];

/** Every domain area's GraphQL resolvers. */
export const resolvers: NonEmptyArray<Function> = [AuthResolver, BlueprintResolver, NodeResolver, LineageResolver, RegistryResolver, OperationResolver];
