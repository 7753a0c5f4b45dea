/**
 * The plan algebra (DESIGN.md section 2): pure, deterministic functions of plans, on which every
 * tool is built. Modules and steps are identified by key; run order is step array order.
 *
 * - sets: {@link unionPlans}, {@link intersectPlans}, {@link subtractPlans}, {@link prunePlan}, {@link restrictPlan}
 * - change: {@link diffPlans}, {@link mergeThreeWay}, {@link mutatePlan}
 * - graph: {@link topologicalOrder}, {@link moduleLevels}, {@link dependencyClusters}, {@link reachableFrom},
 *   {@link dependentsOf}, {@link criticalPath}, {@link partitionSteps}
 * - measures: {@link planStats}, {@link planSimilarity}
 * - validity: {@link repairPlan} turns a combination of plans into a valid plan by dropping what breaks a rule
 *
 * Unless a function says otherwise, inputs are valid plans, results are valid plans, and results
 * never share objects with inputs. No function throws on an invalid plan.
 */
export * from './algebra.json';
export * from './algebra.core';
export * from './algebra.graph';
export * from './algebra.sets';
export * from './algebra.diff';
export * from './algebra.merge';
export * from './algebra.mutate';
export * from './algebra.stats';
export * from './similarity';
