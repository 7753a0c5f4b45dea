import type { NonEmptyArray } from 'type-graphql';
import { architecturesModule } from './architectures/architectures.module';
import { authModule } from './auth/auth.module';
import { blueprintsModule } from './blueprints/blueprints.module';
import { broadcastsModule } from './broadcasts/broadcasts.module';
import { changelogModule } from './changelog/changelog.module';
import { claimsModule } from './claims/claims.module';
import { compareModule } from './compare/compare.module';
import { executionModule } from './execution/execution.module';
import { lineageModule } from './lineage/lineage.module';
import { mcpRoutes } from './mcp/mcp.routes';
import { oauthModule } from './oauth/oauth.module';
import { operationsModule } from './operations/operations.module';
import { proposalsModule } from './proposals/proposals.module';
import type { AreaGauge, AreaModule, Job } from './platform/area';
import type { McpToolDefinition } from './platform/mcp-tool';
import type { RouteModule } from './platform/http/routes';
import { registerTxHooks } from './platform/sql/tx-hooks';
import { registryModule } from './registry/registry.module';
import { reviewsModule } from './reviews/reviews.module';
import { teamsModule } from './teams/teams.module';
import { transferModule } from './transfer/transfer.module';
import { transferMcpExtras } from './transfer/transfer.mcp-resources';
import { versionsModule } from './versions/versions.module';
import { webModule } from './web/web.module';

/** Every domain area, once. Adding an area = adding its module here; the lists below follow. */
export const areas: AreaModule[] = [
  authModule,
  claimsModule,
  blueprintsModule,
  lineageModule,
  registryModule,
  operationsModule,
  executionModule,
  versionsModule,
  changelogModule,
  broadcastsModule,
  compareModule,
  teamsModule,
  reviewsModule,
  proposalsModule,
  architecturesModule,
  transferModule,
  oauthModule,
  webModule,
];

/** Every area's MCP tools (served at `POST /mcp`). */
export const mcpTools: McpToolDefinition[] = areas.flatMap((a) => a.mcpTools ?? []);

/** Every area's REST routes, then the MCP endpoint over all the tools. */
export const routeModules: RouteModule[] = [...areas.flatMap((a) => (a.routes ? [a.routes] : [])), mcpRoutes(mcpTools, transferMcpExtras)];

/** Every area's GraphQL resolvers. */
export const resolvers = areas.flatMap((a) => a.resolvers ?? []) as NonEmptyArray<Function>;

/** Every area's background jobs. */
export const jobs: Job[] = areas.flatMap((a) => a.jobs ?? []);

/** Every area's gauges on `/metrics`. */
export const gauges: AreaGauge[] = areas.flatMap((a) => a.gauges ?? []);

/** Every area's adjustments of the built GraphQL schema (hot-path resolvers). */
export const schemaHooks = areas.flatMap((a) => a.schemaHooks ?? []);

// Each area's part in lower areas' writes (in-transaction hooks), registered once.
registerTxHooks(areas.flatMap((a) => a.hooks ?? []));
