import { randomUUID } from 'node:crypto';
import { ArrayType, Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Node } from '../platform/graphql/graphql-node';
import { Team } from '../teams/team.entity';
import type { Plan } from '../plans/plan';
import type { BlueprintView } from './blueprint.view';

export enum Visibility {
  PUBLIC = 'public',
  PRIVATE = 'private',
}
registerEnumType(Visibility, { name: 'Visibility' });

/** completed / (completed + failed + abandoned); null before any run has ended. The one spelling of it. */
export function successRateOf(c: { executionsCompleted: number; executionsFailed: number; executionsAbandoned: number }): number | null {
  const ended = c.executionsCompleted + c.executionsFailed + c.executionsAbandoned;
  return ended === 0 ? null : c.executionsCompleted / ended;
}

/** Mean review rating to two decimals; null without reviews. The one spelling of it. */
export function ratingAverageOf(reviewCount: number, ratingSum: number): number | null {
  return reviewCount === 0 ? null : Math.round((ratingSum / reviewCount) * 100) / 100;
}

/**
 * A stored, forkable build plan. Counters are denormalised so cards and rankings need no aggregation;
 * they are updated in the same transaction as the row that changes them (a star, a fork, a run).
 */
// Plain fields are read as properties by graphql-js itself (simpleResolvers), not through a type-graphql
// wrapper per field per node: a fork tree resolves them for hundreds of nodes.
@ObjectType('Blueprint', { implements: Node, simpleResolvers: true })
@Entity({ tableName: 'blueprint' })
export class Blueprint implements BlueprintView {
  [OptionalProps]?:
    | 'id'
    | 'description'
    | 'tags'
    | 'team'
    | 'forkedFrom'
    | 'starsCount'
    | 'forksCount'
    | 'executionsStarted'
    | 'executionsCompleted'
    | 'executionsFailed'
    | 'executionsAbandoned'
    | 'moduleCount'
    | 'stepCount'
    | 'reviewCount'
    | 'ratingSum'
    | 'createdAt'
    | 'updatedAt';

  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Field(() => String)
  @Property({ type: 'text', unique: true })
  slug: string;

  @Field(() => String)
  @Property({ type: 'text' })
  name: string;

  @Field(() => String)
  @Property({ type: 'text' })
  description: string = '';

  @Field(() => [String])
  @Property({ type: ArrayType, columnType: 'text[]' })
  tags: string[] = [];

  @Field(() => Visibility)
  @Enum({ items: () => Visibility, columnType: 'text' })
  visibility: Visibility;

  @ManyToOne(() => Principal, { ref: true })
  owner: Ref<Principal>;

  @ManyToOne(() => Team, { ref: true, nullable: true, deleteRule: 'set null' })
  team: Ref<Team> | null = null;

  @Property({ type: 'jsonb' })
  plan: Plan;

  @ManyToOne(() => Blueprint, { ref: true, nullable: true, deleteRule: 'set null' })
  forkedFrom: Ref<Blueprint> | null = null;

  @Field(() => Int)
  @Property({ type: 'integer' })
  moduleCount: number = 0;

  @Field(() => Int)
  @Property({ type: 'integer' })
  stepCount: number = 0;

  // A simple field named `stars`: GraphQL reads the `stars` getter below (and BlueprintRow's), so compiled
  // documents read it inline. A resolver mapping the name cost a call and a resolve info per blueprint of a
  // list; a getter with its own @Field would get one too (type-graphql resolves decorated getters).
  @Field(() => Int, { name: 'stars' })
  @Property({ type: 'integer' })
  starsCount: number = 0;

  get stars(): number {
    return this.starsCount;
  }

  @Field(() => Int)
  @Property({ type: 'integer' })
  forksCount: number = 0;

  @Field(() => Int)
  @Property({ type: 'integer' })
  reviewCount: number = 0;

  /** Sum of the review ratings; kept with `reviewCount` by the reviews area, in the review's transaction. */
  @Property({ type: 'integer' })
  ratingSum: number = 0;

  @Property({ type: 'integer' })
  executionsStarted: number = 0;

  @Property({ type: 'integer' })
  executionsCompleted: number = 0;

  @Property({ type: 'integer' })
  executionsFailed: number = 0;

  @Property({ type: 'integer' })
  executionsAbandoned: number = 0;

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  constructor(init: { slug: string; name: string; visibility: Visibility; owner: Ref<Principal>; plan: Plan }) {
    this.slug = init.slug;
    this.name = init.name;
    this.visibility = init.visibility;
    this.owner = init.owner;
    this.plan = init.plan;
    this.setPlan(init.plan);
  }

  /** Replaces the plan and the counts derived from it. */
  setPlan(plan: Plan): void {
    this.plan = plan;
    this.moduleCount = plan.modules.length;
    this.stepCount = plan.steps.length;
  }

  /** Mean rating of the reviews; null without reviews. (GraphQL: BlueprintResolver.ratingAverage.) */
  get ratingAverage(): number | null {
    return ratingAverageOf(this.reviewCount, this.ratingSum);
  }

  /** completed / (completed + failed + abandoned); null before any run has ended. (GraphQL: BlueprintResolver.successRate.) */
  get successRate(): number | null {
    return successRateOf(this);
  }
}
