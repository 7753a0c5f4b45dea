import type { Plan } from '../plans/plan';
import type { Visibility } from './blueprint.entity';

/**
 * A blueprint as the read side sees it: what field resolvers, wire functions and access rules read.
 * Both the managed entity (`Blueprint`, on writes and single reads) and the plain `BlueprintRow` of the
 * list and graph reads (blueprint.projection.ts) implement it, so a reader serves both without a cast.
 *
 * Field resolvers type their `@Root()` with this interface, not the entity class: for a class,
 * type-graphql copies every root that is not an instance of it into a new instance (running the entity
 * constructor); for an interface the emitted parameter type is `Object` and the root passes through as it is.
 */
export interface BlueprintView {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly tags: string[];
  readonly visibility: Visibility;
  readonly owner: { readonly id: string };
  readonly team: { readonly id: string } | null;
  readonly forkedFrom: { readonly id: string } | null;
  /** On a row read without its plan, reading it throws (blueprint.projection.ts). */
  readonly plan: Plan;
  readonly moduleCount: number;
  readonly stepCount: number;
  readonly starsCount: number;
  /** `starsCount` under its GraphQL name (a getter on both implementations). */
  readonly stars: number;
  readonly forksCount: number;
  readonly executionsStarted: number;
  readonly executionsCompleted: number;
  readonly executionsFailed: number;
  readonly executionsAbandoned: number;
  readonly reviewCount: number;
  readonly ratingSum: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly successRate: number | null;
  readonly ratingAverage: number | null;
}
