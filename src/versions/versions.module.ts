import type { AreaModule } from '../platform/area';
import { versionMcpTools } from './version.mcp';
import { BlueprintVersionsResolver, VersionAuthorResolver } from './version.resolver';
import { versionRoutes } from './version.routes';
import { PlanEditResolver } from './plan-edit.resolver';

/** The versions area: everything it adds to the app. */
export const versionsModule: AreaModule = {
  name: 'versions',
  resolvers: [BlueprintVersionsResolver, VersionAuthorResolver, PlanEditResolver],
  routes: versionRoutes,
  mcpTools: versionMcpTools,
};
