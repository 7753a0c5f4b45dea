import { planSimilarity } from '../plans/algebra';
import type { Plan } from '../plans/plan';

export interface BreedScore {
  score: number;
  sharedModules: string[];
  newModules: string[];
}

/**
 * How worth breeding `candidate` with `base` is: it should fit (similar module graphs breed cleanly) and
 * bring something (modules `base` lacks). The score is the harmonic mean of the two, so a near copy
 * (nothing new) and an unrelated plan (nothing shared) both score 0.
 */
export function breedScore(base: Pick<Plan, 'modules'>, candidate: Pick<Plan, 'modules'>): BreedScore {
  const baseKeys = new Set(base.modules.map((m) => m.key));
  const sharedModules = candidate.modules
    .filter((m) => baseKeys.has(m.key))
    .map((m) => m.key)
    .sort();
  const newModules = candidate.modules
    .filter((m) => !baseKeys.has(m.key))
    .map((m) => m.key)
    .sort();
  const fit = planSimilarity(base, candidate);
  const novelty = candidate.modules.length === 0 ? 0 : newModules.length / candidate.modules.length;
  const score = fit + novelty === 0 ? 0 : (2 * fit * novelty) / (fit + novelty);
  return { score: Math.round(score * 1000) / 1000, sharedModules, newModules };
}
