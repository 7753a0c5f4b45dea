import { listProjection, projectionOf } from '../blueprints/blueprint.projection';
import { toCard } from '../blueprints/blueprint.wire';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import { pageFromQuery } from '../platform/pagination';
import { BREED_SUGGESTIONS_MAX, breedSuggestions } from './breed-suggestions.service';
import { parseTags, parseWindowDays, registrySorts, searchRegistry, type RegistrySort } from './registry.service';
import { trending } from './trending.service';

export interface RegistrySearchQuery {
  q?: unknown;
  tags?: unknown;
  sort?: unknown;
  limit?: unknown;
  offset?: unknown;
}

/** What a registry item shows: the card plus description, tags, forks and creation time (never the plan). */
const registryItemColumns = projectionOf([
  'slug',
  'name',
  'description',
  'tags',
  'stars_count',
  'forks_count',
  'module_count',
  'step_count',
  'created_at',
  'executions_completed',
  'executions_failed',
  'executions_abandoned',
  'review_count',
  'rating_sum',
]);

/**
 * `GET /api/registry` (REST and MCP): cards with description, tags, forks and creation time, and the total
 * (exact when `total_exact`; otherwise there are more than `total` matches, see `EXACT_TOTAL_AHEAD`).
 */
export async function registrySearchBody(ctx: RequestContext, query: RegistrySearchQuery) {
  const page = pageFromQuery(query, ctx.config.limits);
  const sort = query.sort;
  if (sort !== undefined && !registrySorts.includes(sort as RegistrySort))
    throw invalid('sort', 'is not a known sort order', `sort must be one of: ${registrySorts.join(', ')}`);
  if (query.q !== undefined && typeof query.q !== 'string') throw invalid('q', 'must be a string');
  const result = await searchRegistry(ctx, { q: query.q, tags: parseTags(query.tags), sort: sort as RegistrySort | undefined }, page, registryItemColumns);
  return {
    items: result.items.map((bp) =>
      toCard(bp, { description: bp.description, tags: bp.tags, forks_count: bp.forksCount, created_at: bp.createdAt.toISOString() }),
    ),
    total: result.total,
    total_exact: result.totalExact,
    ...page,
  };
}

/** `GET /api/registry/trending` (REST and MCP): cards with description, tags, score and the window's activity. */
export async function trendingBody(ctx: RequestContext, query: { limit?: unknown; window_days?: unknown }) {
  const { limit } = pageFromQuery({ limit: query.limit }, ctx.config.limits);
  const windowDays = parseWindowDays(query.window_days);
  const entries = await trending(ctx, windowDays, limit, listProjection);
  return {
    window_days: windowDays,
    items: entries.map((e) =>
      toCard(e.blueprint, {
        description: e.blueprint.description,
        tags: e.blueprint.tags,
        score: e.score,
        activity: { stars: e.stars, forks: e.forks, executions: e.executions },
      }),
    ),
  };
}

/** `GET /api/blueprints/:id/breed-suggestions` (REST and MCP). */
export async function breedSuggestionsBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown }) {
  const limit = query.limit === undefined ? undefined : pageFromQuery({ limit: query.limit }, { ...ctx.config.limits, pageMax: BREED_SUGGESTIONS_MAX }).limit;
  const result = await breedSuggestions(ctx, idOrSlug, limit);
  return {
    blueprint_id: result.blueprintId,
    items: result.items.map((s) => ({ blueprint: toCard(s.blueprint), score: s.score, shared_modules: s.sharedModules, new_modules: s.newModules })),
  };
}
