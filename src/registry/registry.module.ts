import type { AreaModule } from '../platform/area';
import { registryMcpTools } from './registry.mcp';
import { RegistryResolver } from './registry.resolver';
import { BreedSuggestionsResolver } from './breed-suggestions.resolver';
import { registryRoutes } from './registry.routes';
import { trendingAdvance } from './trending.service';

/** The registry area: everything it adds to the app. */
export const registryModule: AreaModule = {
  name: 'registry',
  resolvers: [RegistryResolver, BreedSuggestionsResolver],
  routes: registryRoutes,
  mcpTools: registryMcpTools,
  jobs: [trendingAdvance],
};
