import type { NonEmptyArray } from 'type-graphql';
import { ArchitectureNodeResolver } from './architectures/architecture-node.resolver';
import { ArchitectureLifecycleResolver } from './architectures/architecture-lifecycle.resolver';
import { ArchitectureResolver } from './architectures/architecture.resolver';
import { architectureRoutes } from './architectures/architecture.routes';
import { accountRoutes } from './auth/account.routes';
import { AccountResolver } from './auth/account.resolver';
import { authRoutes } from './auth/auth.routes';
import { AuthResolver } from './auth/auth.resolver';
import { BlueprintLifecycleResolver } from './blueprints/blueprint-lifecycle.resolver';
import { BlueprintResolver } from './blueprints/blueprint.resolver';
import { blueprintRoutes } from './blueprints/blueprint.routes';
import { NodeResolver } from './blueprints/node.resolver';
import { BlueprintExecutionResolver, ExecutionResolver } from './execution/execution.resolver';
import { executionMcpTools } from './execution/execution.mcp';
import { executionRoutes } from './execution/execution.routes';
import { BlueprintActivityResolver } from './broadcasts/activity.resolver';
import { BlueprintBroadcastResolver, BroadcastResolver } from './broadcasts/broadcast.resolver';
import { broadcastRoutes } from './broadcasts/broadcast.routes';
import { BlueprintChangelogResolver, ChangelogEntryResolver } from './changelog/changelog.resolver';
import { changelogRoutes } from './changelog/changelog.routes';
import { CompareResolver } from './compare/compare.resolver';
import { compareRoutes } from './compare/compare.routes';
import { LineageResolver } from './lineage/lineage.resolver';
import { coreMcpTools } from './mcp/core.tools';
import type { McpToolDefinition } from './mcp/mcp-tool';
import { mcpRoutes } from './mcp/mcp.routes';
import { lineageRoutes } from './lineage/lineage.routes';
import { ProvenanceResolver } from './lineage/provenance.resolver';
import { OperationResolver } from './operations/operation.resolver';
import { operationRoutes } from './operations/operation.routes';
import type { RouteModule } from './platform/routes';
import { BreedSuggestionsResolver } from './registry/breed-suggestions.resolver';
import { RegistryResolver } from './registry/registry.resolver';
import { registryRoutes } from './registry/registry.routes';
import { BlueprintVersionsResolver, VersionAuthorResolver } from './versions/version.resolver';
import { versionRoutes } from './versions/version.routes';
import { BlueprintReviewsResolver, ReviewResolver } from './reviews/review.resolver';
import { reviewRoutes } from './reviews/review.routes';
import { TeamResolver } from './teams/team.resolver';
import { teamRoutes } from './teams/team.routes';
import { webRoutes } from './web/web.routes';

/** Every domain area's MCP tools (served at `POST /mcp`). */
export const mcpTools: McpToolDefinition[] = [
  ...coreMcpTools,
  ...executionMcpTools,
];

/** Every domain area's REST routes. Adding an area = adding it here, in `resolvers` and in `mcpTools`. */
export const routeModules: RouteModule[] = [
  authRoutes,
  accountRoutes,
  blueprintRoutes,
  lineageRoutes,
  registryRoutes,
  operationRoutes,
  executionRoutes,
  versionRoutes,
  changelogRoutes,
  broadcastRoutes,
  compareRoutes,
  teamRoutes,
  reviewRoutes,
  architectureRoutes,
  mcpRoutes(mcpTools),
  webRoutes,
];

/** Every domain area's GraphQL resolvers. */
export const resolvers: NonEmptyArray<Function> = [
  AuthResolver,
  AccountResolver,
  BlueprintResolver,
  NodeResolver,
  LineageResolver,
  ProvenanceResolver,
  RegistryResolver,
  BreedSuggestionsResolver,
  OperationResolver,
  ExecutionResolver,
  BlueprintExecutionResolver,
  BlueprintVersionsResolver,
  VersionAuthorResolver,
  ChangelogEntryResolver,
  BlueprintChangelogResolver,
  BroadcastResolver,
  BlueprintBroadcastResolver,
  BlueprintActivityResolver,
  CompareResolver,
  TeamResolver,
  ReviewResolver,
  BlueprintReviewsResolver,
  ArchitectureResolver,
  ArchitectureNodeResolver,
  ArchitectureLifecycleResolver,
  BlueprintLifecycleResolver,
];
