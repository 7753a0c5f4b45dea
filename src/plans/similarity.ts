/**
 * How alike two module graphs are (topological_search, breed suggestions). Only modules are
 * compared, so a query graph without steps can be matched against stored plans.
 */
import type { Plan } from './plan';
import { dependencyMap } from './algebra.graph';

/** Each component of {@link planSimilarity}, every one in [0, 1], and their weighted score. */
export interface SimilarityBreakdown {
  /** Jaccard index of module keys. */
  modules: number;
  /** Jaccard index of dependency edges (`from -> to` by key). */
  edges: number;
  /** Weighted Jaccard index of module kinds (how many `backend`, `data`... modules). */
  kinds: number;
  /** Weighted Jaccard index of edges by kind (`frontend -> backend`): shape regardless of naming. */
  shape: number;
  score: number;
}

// Weights in hundredths so that all-ones components sum to exactly 1 (no floating-point drift).
const weights = { modules: 35, edges: 25, kinds: 20, shape: 20 } as const;

/**
 * Similarity of two module graphs in [0, 1]: 1 for plans with the same modules, kinds and edges,
 * 0 when they share no key, edge, kind or kind-to-kind edge. Symmetric. Two empty sets count as
 * identical, so two plans without dependencies are not penalised for it.
 */
export function planSimilarity(a: Pick<Plan, 'modules'>, b: Pick<Plan, 'modules'>): number {
  return planSimilarityBreakdown(a, b).score;
}

/** {@link planSimilarity} with its components, for reports that explain a match. */
export function planSimilarityBreakdown(a: Pick<Plan, 'modules'>, b: Pick<Plan, 'modules'>): SimilarityBreakdown {
  const [fa, fb] = [features(a), features(b)];
  const parts = {
    modules: jaccard(fa.keys, fb.keys),
    edges: jaccard(fa.edges, fb.edges),
    kinds: weightedJaccard(fa.kinds, fb.kinds),
    shape: weightedJaccard(fa.shape, fb.shape),
  };
  const score = (weights.modules * parts.modules + weights.edges * parts.edges + weights.kinds * parts.kinds + weights.shape * parts.shape) / 100;
  return { ...parts, score: Math.min(1, Math.max(0, score)) };
}

function features(plan: Pick<Plan, 'modules'>) {
  const deps = dependencyMap(plan);
  const kindOf = new Map<string, string>();
  for (const m of plan.modules) if (!kindOf.has(m.key)) kindOf.set(m.key, m.kind);
  const kinds = new Map<string, number>();
  for (const kind of kindOf.values()) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const edges = new Set<string>();
  const shape = new Map<string, number>();
  for (const [from, ds] of deps) {
    for (const to of ds) {
      edges.add(`${from}\u0000${to}`);
      const k = `${kindOf.get(from)}\u0000${kindOf.get(to)}`;
      shape.set(k, (shape.get(k) ?? 0) + 1);
    }
  }
  return { keys: new Set(deps.keys()), edges, kinds, shape };
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** Sum of per-item minimum counts over sum of maximum counts (Jaccard for multisets). */
function weightedJaccard(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let min = 0;
  let max = 0;
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const [x, y] = [a.get(key) ?? 0, b.get(key) ?? 0];
    min += Math.min(x, y);
    max += Math.max(x, y);
  }
  return min / max;
}
