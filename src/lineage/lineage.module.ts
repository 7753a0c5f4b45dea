import type { AreaModule } from '../platform/area';
import { LineageResolver } from './lineage.resolver';
import { ProvenanceResolver } from './provenance.resolver';
import { lineageRoutes } from './lineage.routes';

/** The lineage area: everything it adds to the app. */
export const lineageModule: AreaModule = {
  name: 'lineage',
  resolvers: [LineageResolver, ProvenanceResolver],
  routes: lineageRoutes,
};
