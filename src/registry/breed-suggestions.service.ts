import { requireViewer } from '../auth/auth.service';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { getBlueprint } from '../blueprints/blueprint.service';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import { breedScore, type BreedScore } from './breed-suggestions';
import { relatedCandidates, type Candidate } from './candidates';

export interface BreedSuggestion extends BreedScore {
  blueprint: Blueprint;
}

export const BREED_SUGGESTIONS_MAX = 50;

/**
 * Blueprints the caller may read that are worth breeding with this one (see `breedScore`), best first.
 * Candidates share at least one module key or kind; at most `CANDIDATES_MAX` are scored.
 */
export async function breedSuggestions(ctx: RequestContext, idOrSlug: string, limit = 10): Promise<{ blueprintId: string; items: BreedSuggestion[] }> {
  requireViewer(ctx);
  if (!Number.isInteger(limit) || limit < 1 || limit > BREED_SUGGESTIONS_MAX) throw invalid('limit', `must be between 1 and ${BREED_SUGGESTIONS_MAX}`);
  const bp = await getBlueprint(ctx, idOrSlug);
  const candidates = await relatedCandidates(ctx.em, ctx.viewer, bp.plan.modules, [bp.id]);
  const best = candidates
    .map((candidate: Candidate) => ({ candidate, ...breedScore(bp.plan, candidate) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.candidate.stars_count - a.candidate.stars_count || (a.candidate.id < b.candidate.id ? -1 : 1))
    .slice(0, limit);
  // The winners as full blueprints (one batched statement) so cards carry every field, success rate included.
  const blueprints = await blueprintLoaders(ctx).byId.loadMany(best.map((s) => s.candidate.id));
  const items = best.flatMap(({ candidate: _c, ...score }, i) => {
    const blueprint = blueprints[i];
    return blueprint && !(blueprint instanceof Error) ? [{ blueprint, ...score }] : [];
  });
  return { blueprintId: bp.id, items };
}
