import type { AreaModule } from '../platform/area';
import { withPrefetchedForks, withRootForkTree } from './fork-tree';
import { lineageMcpTools } from './lineage.mcp';
import { LineageResolver } from './lineage.resolver';
import { ProvenanceResolver } from './provenance.resolver';
import { lineageRoutes } from './lineage.routes';

/** The lineage area: everything it adds to the app. */
export const lineageModule: AreaModule = {
  name: 'lineage',
  resolvers: [LineageResolver, ProvenanceResolver],
  routes: lineageRoutes,
  mcpTools: lineageMcpTools,
  schemaHooks: [withPrefetchedForks, withRootForkTree],
};
