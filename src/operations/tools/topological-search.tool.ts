import { readableSql } from '../../blueprints/access';
import type { Card } from '../../blueprints/blueprint.wire';
import { planSimilarityBreakdown } from '../../plans/algebra';
import { keyPattern } from '../../plans/plan.schema';
import type { PlanModule } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { CANDIDATES_MAX, relatedCandidates } from '../../registry/candidates';
import { blueprintRef, reportResult, round } from '../tool-output.report';
import type { ToolContext, ToolDefinition } from '../tool-definition';

interface QueryModule {
  key: string;
  kind: string;
  depends_on?: string[];
}

interface SearchParams {
  query?: { modules: QueryModule[] };
  limit: number;
}

/** A match: the card's identity and size, with how it scored. */
interface Match extends Pick<Card, 'id' | 'slug' | 'name' | 'stars' | 'module_count' | 'step_count'> {
  score: number;
  breakdown: { modules: number; edges: number; kinds: number; shape: number };
}

interface SearchState {
  considered: number;
  matches: Match[];
  excluded?: string[];
  notes?: string;
}

type Ctx = ToolContext<SearchParams, SearchState>;

function queryModules(c: Ctx): Pick<PlanModule, 'key' | 'kind' | 'dependsOn'>[] {
  if (c.sources[0]) return c.sources[0].plan.modules;
  return c.params.query!.modules.map((m) => ({ key: m.key, kind: m.kind, dependsOn: m.depends_on ?? [] }));
}

/** Scores the bounded candidate set with `planSimilarity`; best first, then most starred, then by id. */
async function search(c: Ctx): Promise<SearchState> {
  const modules = queryModules(c);
  const query = { modules: modules.map((m) => ({ key: m.key, name: m.key, summary: '', kind: m.kind, dependsOn: m.dependsOn })) };
  const rows = await relatedCandidates(c.tx, c.ctx.viewer, modules, c.sources[0] ? [c.sources[0].id] : []);
  const matches = rows
    .map((r): Match => {
      const b = planSimilarityBreakdown(query, { modules: r.modules });
      return {
        id: r.id,
        slug: r.slug,
        name: r.name,
        stars: r.stars_count,
        module_count: r.module_count,
        step_count: r.step_count,
        score: round(b.score),
        breakdown: { modules: round(b.modules), edges: round(b.edges), kinds: round(b.kinds), shape: round(b.shape) },
      };
    })
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || b.stars - a.stars || (a.id < b.id ? -1 : 1))
    .slice(0, c.params.limit);
  return { considered: rows.length, matches };
}

/** `topological_search`: readable blueprints whose module graph is most like the source's or a query graph. */
export const topologicalSearchTool: ToolDefinition<SearchParams, SearchState> = {
  type: 'topological_search',
  summary: 'Finds blueprints whose module dependency graph is similar to a given blueprint or to a query graph.',
  sources: { min: 0, max: 1 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: {
        type: 'object',
        additionalProperties: false,
        required: ['modules'],
        description: 'The graph to match when no source blueprint is given.',
        properties: {
          modules: {
            type: 'array',
            minItems: 1,
            maxItems: 500,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['key', 'kind'],
              properties: {
                key: { type: 'string', pattern: keyPattern, maxLength: 100 },
                kind: { type: 'string', pattern: '^[a-z][a-z0-9_-]*$', maxLength: 40 },
                depends_on: { type: 'array', maxItems: 500, items: { type: 'string', pattern: keyPattern, maxLength: 100 } },
              },
            },
          },
        },
      },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    },
  },
  checkStart(c) {
    if (c.sources.length === 0 && !c.params.query)
      throw invalid('params/query', 'is required without a source blueprint', 'params/query is required when no source blueprint is given');
    if (c.sources.length === 1 && c.params.query)
      throw invalid(
        'params/query',
        'must be absent with a source blueprint',
        'params/query must be absent when a source blueprint is given (its graph is the query)',
      );
  },
  initialState: (c) => search(c),
  steps: () => [
    {
      title: 'Review the matches',
      prompt: (c) => {
        const what = c.sources[0] ? `blueprint "${c.sources[0].name}"` : `the query graph (${c.params.query!.modules.map((m) => m.key).join(', ')})`;
        const list = c.state.matches
          .map(
            (m, i) =>
              `${i + 1}. ${m.name} (${m.id}) score ${m.score} — modules ${m.breakdown.modules}, edges ${m.breakdown.edges}, kinds ${m.breakdown.kinds}, shape ${m.breakdown.shape}`,
          )
          .join('\n');
        return `The server scored ${c.state.considered} readable blueprint(s) sharing a module key or kind with ${what}; the best:\n${list || '(no similar blueprint found)'}\n\nStep 1 of 1: confirm the ranking, or exclude matches that are similar in shape only by accident (give their ids), and optionally add notes.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          exclude: { type: 'array', uniqueItems: true, maxItems: 50, default: [], items: { type: 'string' } },
          notes: { type: 'string', maxLength: 20_000 },
        },
      },
      accept: (c, s: { exclude: string[]; notes?: string }) => {
        const ids = new Set(c.state.matches.map((m) => m.id));
        s.exclude.forEach((id, i) => {
          if (!ids.has(id)) throw invalid(`submission/exclude/${i}`, 'is not one of the matches');
        });
        return { ...c.state, excluded: s.exclude, ...(s.notes ? { notes: s.notes } : {}) };
      },
    },
  ],
  async finish(c) {
    const excluded = new Set(c.state.excluded ?? []);
    const kept = c.state.matches.filter((m) => !excluded.has(m.id));
    // Visibility may have changed since the start: only matches still readable are reported.
    const readable = readableSql('b', c.ctx.viewer);
    const rows: Array<{ id: string }> = kept.length
      ? await c.tx.execute(`select b.id from blueprint b where b.id = any(?::uuid[]) and ${readable.sql}`, [
          `{${kept.map((m) => m.id).join(',')}}`,
          ...readable.params,
        ])
      : [];
    const still = new Set(rows.map((r) => r.id));
    return reportResult({
      query: c.sources[0]
        ? { blueprint: blueprintRef(c.sources[0]), modules: c.sources[0].plan.modules.length }
        : { blueprint: null, modules: c.params.query!.modules.length },
      candidates_considered: c.state.considered,
      candidates_max: CANDIDATES_MAX,
      matches: kept
        .filter((m) => still.has(m.id))
        .map((m) => ({
          blueprint: { id: m.id, slug: m.slug, name: m.name, stars: m.stars, module_count: m.module_count, step_count: m.step_count },
          score: m.score,
          breakdown: m.breakdown,
        })),
      excluded: [...excluded],
      notes: c.state.notes ?? null,
    });
  },
};
