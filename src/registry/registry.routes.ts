import { toCard } from '../blueprints/blueprint.wire';
import { invalid } from '../platform/errors';
import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/routes';
import { registrySchemas } from './registry.schemas';
import { BREED_SUGGESTIONS_MAX, breedSuggestions } from './breed-suggestions.service';
import { parseTags, parseWindowDays, registrySorts, searchRegistry, trending, type RegistrySort } from './registry.service';

type RegistryQuerystring = { q?: string; tags?: string; limit?: string; offset?: string; sort?: string };

export const registryRoutes: RouteModule = (app, deps) => {
  app.get<{ Querystring: RegistryQuerystring }>('/api/registry', { schema: registrySchemas.search }, async (request) => {
    const ctx = await requestContext(request, deps);
    const page = pageFromQuery(request.query, deps.config.limits);
    const sort = request.query.sort;
    if (sort !== undefined && !registrySorts.includes(sort as RegistrySort))
      throw invalid('sort', 'is not a known sort order', `sort must be one of: ${registrySorts.join(', ')}`);
    const result = await searchRegistry(ctx, { q: request.query.q, tags: parseTags(request.query.tags), sort: sort as RegistrySort | undefined }, page);
    return { items: result.items.map((bp) => ({ ...toCard(bp), description: bp.description, tags: bp.tags, forks_count: bp.forksCount, created_at: bp.createdAt.toISOString() })), total: result.total, ...page };
  });

  app.get<{ Querystring: { limit?: string; window_days?: string } }>(
    '/api/registry/trending',
    { schema: registrySchemas.trending },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const { limit } = pageFromQuery({ limit: request.query.limit }, deps.config.limits);
      const windowDays = parseWindowDays(request.query.window_days);
      const entries = await trending(ctx, windowDays, limit);
      return {
        window_days: windowDays,
        items: entries.map((e) => ({ ...toCard(e.blueprint), description: e.blueprint.description, tags: e.blueprint.tags, score: e.score, activity: { stars: e.stars, forks: e.forks, executions: e.executions } })),
      };
    },
  );

  /** Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks. */
  app.get<{ Params: { id: string }; Querystring: { limit?: string } }>(
    '/api/blueprints/:id/breed-suggestions',
    { schema: registrySchemas.breedSuggestions },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const limit = request.query.limit === undefined ? undefined : pageFromQuery({ limit: request.query.limit }, { ...deps.config.limits, pageMax: BREED_SUGGESTIONS_MAX }).limit;
      const result = await breedSuggestions(ctx, request.params.id, limit);
      return {
        blueprint_id: result.blueprintId,
        items: result.items.map((s) => ({ blueprint: toCard(s.blueprint), score: s.score, shared_modules: s.sharedModules, new_modules: s.newModules })),
      };
    },
  );
};
