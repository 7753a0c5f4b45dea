/**
 * The plan algebra (docs/api.md): pure, deterministic functions of plans, on which every
 * tool is built. Modules and steps are identified by key; run order is step array order.
 *
 * - sets: {@link unionPlans} (breed, weave), {@link intersectPlans}, {@link subtractPlans},
 *   {@link prunePlan}, {@link restrictPlan} (splice, distill, shatter)
 * - change: {@link diffPlans} (difference, versions, compare), {@link mergeThreeWay} (upstream_merge,
 *   upstream_shield), {@link mutatePlan}
 * - graph: {@link topologicalOrder}, {@link moduleLevels}, {@link dependencyClusters} (shatter),
 *   {@link reachableFrom}, {@link dependentsOf}, {@link criticalPath}, {@link partitionSteps} (swarm_partition)
 * - measures: {@link planStats} (phenotyping), {@link planSimilarity} (topological_search)
 * - validity: {@link repairPlan} turns a combination of plans into a valid plan by dropping what breaks a rule
 *
 * Unless a function says otherwise: inputs are valid plans, results are valid plans, results never
 * share objects with inputs, inputs are never modified, and nothing throws on an invalid plan.
 * Import from this file; the `algebra.*.ts` files are its parts.
 */
export { cloneJson, deepEqual, diffJson, intersectJson, isJsonObject, jsonPath, mergeJsonFirstWins, parseJsonPath, setJsonPath } from './algebra.json';
export type { JsonDiff, JsonMergeConflict, JsonVariant } from './algebra.json';
export {
  changedModuleFields,
  changedStepFields,
  clonePlan,
  moduleFields,
  planSections,
  relativeOrderDiffers,
  repairPlan,
  restrictPlan,
  sameModule,
  sameStep,
  stepFields,
  weaveOrder,
} from './algebra.core';
export type { PlanRepair, PlanSection, RepairReason } from './algebra.core';
export {
  chainWeight,
  criticalPath,
  dependencyClusters,
  dependencyMap,
  dependentsOf,
  moduleLevels,
  partitionSteps,
  reachableFrom,
  topologicalOrder,
} from './algebra.graph';
export { intersectPlans, prunePlan, subtractPlans, unionPlans } from './algebra.sets';
export type { Conflict, ConflictKind, UnionResult, Variant } from './algebra.sets';
export { diffPlans } from './algebra.diff';
export type { ChangedItem, KeyedDiff, PlanDiff, StepsDiff } from './algebra.diff';
export { mergeThreeWay } from './algebra.merge';
export type { MergeConflict, MergeConflictReason, MergeOptions, MergePins, MergeResult, ShieldedChange } from './algebra.merge';
export { mutatePlan, seededRandom } from './algebra.mutate';
export { planStats } from './algebra.stats';
export type { PlanStats } from './algebra.stats';
export { planSimilarity, planSimilarityBreakdown } from './similarity';
export type { SimilarityBreakdown } from './similarity';
