import { randomUUID } from 'node:crypto';
import { ArrayType, Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';

/** `running -> completed | failed | abandoned` (docs/api.md). */
export enum ExecutionStatus {
  RUNNING = 'running',
  COMPLETED = 'completed',
  FAILED = 'failed',
  ABANDONED = 'abandoned',
}
registerEnumType(ExecutionStatus, {
  name: 'ExecutionStatus',
  description: 'running until the last step is fetched (completed), the agent reports failure (failed) or no step comes for the idle limit (abandoned).',
});

/**
 * One execution of a blueprint by one principal: a row per start. Stage tokens are stored only as
 * hashes; the blueprint's counters (`executions_*`) change in the same transaction as this row's status.
 */
@ObjectType('ExecutionRun', { description: 'One execution of a blueprint (execution history).' })
@Entity({ tableName: 'execution_run' })
export class ExecutionRun {
  [OptionalProps]?: 'id' | 'status' | 'stepsReached' | 'notes' | 'startedAt' | 'lastStepAt' | 'endedAt' | 'blueprintVersion' | 'systemPrompt';

  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @ManyToOne(() => Principal, { ref: true })
  principal: Ref<Principal>;

  @Field(() => ExecutionStatus)
  @Enum({ items: () => ExecutionStatus, columnType: 'text' })
  status: ExecutionStatus = ExecutionStatus.RUNNING;

  @Field(() => Int)
  @Property({ type: 'integer' })
  totalSteps: number;

  @Field(() => Int, { description: 'The highest step fetched so far (0 right after start).' })
  @Property({ type: 'integer' })
  stepsReached: number = 0;

  /** `stageTokenHashes[n - 1]` is the SHA-256 of step n's token. */
  @Property({ type: ArrayType, columnType: 'text[]' })
  stageTokenHashes: string[];

  /** The blueprint version whose plan the run follows; null only for runs of an unversioned blueprint. */
  @Property({ type: 'integer', nullable: true })
  blueprintVersion: number | null = null;

  /**
   * The system prompt the run started with (its blueprint version and, for a team blueprint, the team's
   * conventions as they were then): a later edit of the conventions reaches later runs only.
   */
  @Field(() => String, { nullable: true, description: 'The system prompt this run started with; later edits of team conventions do not change it.' })
  @Property({ type: 'text', nullable: true })
  systemPrompt: string | null = null;

  @Field(() => String, { nullable: true, description: 'What the agent reported, if it did.' })
  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  startedAt: Date = new Date();

  @Field(() => Date, { nullable: true })
  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  lastStepAt: Date | null = null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  endedAt: Date | null = null;

  constructor(init: { blueprint: Ref<Blueprint>; principal: Ref<Principal>; totalSteps: number; stageTokenHashes: string[]; blueprintVersion: number | null }) {
    this.blueprint = init.blueprint;
    this.principal = init.principal;
    this.totalSteps = init.totalSteps;
    this.stageTokenHashes = init.stageTokenHashes;
    this.blueprintVersion = init.blueprintVersion;
  }

  /** When the run last showed a sign of life. */
  get lastActivityAt(): Date {
    return this.lastStepAt ?? this.startedAt;
  }
}
