import type { AreaModule } from '../platform/area';
import { RegistryResolver } from './registry.resolver';
import { BreedSuggestionsResolver } from './breed-suggestions.resolver';
import { registryRoutes } from './registry.routes';

/** The registry area: everything it adds to the app. */
export const registryModule: AreaModule = {
  name: 'registry',
  resolvers: [RegistryResolver, BreedSuggestionsResolver],
  routes: registryRoutes,
};
