import { requestContext } from '../platform/http';
import { idParam, type RouteModule } from '../platform/routes';
import { breedSuggestionsBody, registrySearchBody, trendingBody, type RegistrySearchQuery } from './registry.wire';

export const registryRoutes: RouteModule = (app, deps) => {
  const stringProps = (...names: string[]) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) });

  app.get<{ Querystring: RegistrySearchQuery }>('/api/registry', { schema: { querystring: stringProps('q', 'tags', 'limit', 'offset', 'sort') } }, async (request) =>
    registrySearchBody(await requestContext(request, deps), request.query),
  );

  app.get<{ Querystring: { limit?: string; window_days?: string } }>(
    '/api/registry/trending',
    { schema: { querystring: stringProps('limit', 'window_days') } },
    async (request) => trendingBody(await requestContext(request, deps), request.query),
  );

  /** Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks. */
  app.get<{ Params: { id: string }; Querystring: { limit?: string } }>(
    '/api/blueprints/:id/breed-suggestions',
    { schema: { params: idParam('id'), querystring: stringProps('limit') } },
    async (request) => breedSuggestionsBody(await requestContext(request, deps), request.params.id, request.query),
  );
};
