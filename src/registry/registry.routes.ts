import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { registryContract } from './registry.contract';
import { breedSuggestionsBody, registrySearchBody, trendingBody, type RegistrySearchQuery } from './registry.wire';

export const registryRoutes: RouteModule = (app, deps) => {
  app.get<{ Querystring: RegistrySearchQuery }>('/api/registry', { schema: registryContract.search }, async (request) =>
    registrySearchBody(await requestContext(request, deps), request.query),
  );

  app.get<{ Querystring: { limit?: string; window_days?: string } }>('/api/registry/trending', { schema: registryContract.trending }, async (request) =>
    trendingBody(await requestContext(request, deps), request.query),
  );

  /** Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks. */
  app.get<{ Params: { id: string }; Querystring: { limit?: string } }>(
    '/api/blueprints/:id/breed-suggestions',
    { schema: registryContract.breedSuggestions },
    async (request) => breedSuggestionsBody(await requestContext(request, deps), request.params.id, request.query),
  );
};
