import { requestContext } from '../platform/http/http';
import { afterViewer } from '../platform/graphql/deferred-viewer';
import type { RouteModule } from '../platform/http/routes';
import { registryContract } from './registry.contract';
import { breedSuggestionsBody, registrySearchBody, trendingBody, type RegistrySearchQuery } from './registry.wire';

export const registryRoutes: RouteModule = (app, deps) => {
  // Public rows only, nothing read from the viewer: a token seen before is looked up by the page's statement.
  app.get<{ Querystring: RegistrySearchQuery }>('/api/registry', { schema: registryContract.search, config: { viewerAfterRead: true } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return afterViewer(ctx, () => registrySearchBody(ctx, request.query));
  });

  app.get<{ Querystring: { limit?: string; window_days?: string } }>(
    '/api/registry/trending',
    { schema: registryContract.trending, config: { viewerAfterRead: true } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      return afterViewer(ctx, () => trendingBody(ctx, request.query));
    },
  );

  /** Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks. */
  app.get<{ Params: { id: string }; Querystring: { limit?: string } }>(
    '/api/blueprints/:id/breed-suggestions',
    { schema: registryContract.breedSuggestions },
    async (request) => breedSuggestionsBody(await requestContext(request, deps), request.params.id, request.query),
  );
};
