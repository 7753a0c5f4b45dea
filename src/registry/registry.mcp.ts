import { tagField } from '../blueprints/blueprint.contract';
import { args, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { registryContract } from './registry.contract';
import { BREED_SUGGESTIONS_MAX } from './breed-suggestions.service';
import { EXACT_TOTAL_AHEAD, registrySorts } from './registry.service';
import { breedSuggestionsBody, registrySearchBody, trendingBody } from './registry.wire';

/** The registry as MCP tools: the same body builders as `/api/registry`, `/api/registry/trending` and breed suggestions. */
export const registryMcpTools = [
  mcpTool<{ q?: string; tags?: string; sort?: string; limit?: number; offset?: number }>({
    name: 'registry_search',
    description: `Search public blueprints by keyword (full-text over name, tags and description) and tags (comma-separated, all must match). sort: relevance (default with q), stars (default without), recent or trending. total is exact up to ${EXACT_TOTAL_AHEAD} matches past offset; total_exact false means there are more. Same body as GET /api/registry.`,
    input: args({
      q: { type: 'string', maxLength: 200, description: 'Keywords (web-search syntax: "quoted phrase", -exclude, or).' },
      tags: { type: 'string', maxLength: 1000, description: `Comma-separated tags, all must match (each ${String(tagField.pattern)}).` },
      sort: { type: 'string', enum: [...registrySorts] },
      ...pageArgs,
    }),
    output: registryContract.search.response[200],
    readOnly: true,
    handler: (ctx, a) => registrySearchBody(ctx, a),
  }),
  mcpTool<{ limit?: number; window_days?: number }>({
    name: 'registry_trending',
    description:
      'Public blueprints ranked by what works inside the last window_days days (default 7): distinct principals, never the owner or team members, who starred (1), forked (3) or finished a run to its last step (5). Same body as GET /api/registry/trending.',
    input: args({
      limit: pageArgs.limit,
      window_days: { type: 'integer', minimum: 1, maximum: 365, default: 7, description: 'Days of activity counted, 1-365.' },
    }),
    output: registryContract.trending.response[200],
    readOnly: true,
    handler: (ctx, a) => trendingBody(ctx, a),
  }),
  mcpTool<{ blueprint_id: string; limit?: number }>({
    name: 'blueprint_breed_suggestions',
    description:
      'Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks; best first. Same body as GET /api/blueprints/:id/breed-suggestions.',
    input: args(
      { blueprint_id: idArg('A blueprint id (UUID) or slug.'), limit: { type: 'integer', minimum: 1, maximum: BREED_SUGGESTIONS_MAX, default: 10 } },
      ['blueprint_id'],
    ),
    output: registryContract.breedSuggestions.response[200],
    readOnly: true,
    handler: (ctx, a) => breedSuggestionsBody(ctx, a.blueprint_id, a),
  }),
];
