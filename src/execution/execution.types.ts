import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionType } from '../platform/graphql/graphql-connection';
import { ExecutionRun } from './execution-run.entity';

/** The statuses an agent may report; `completed` only for a run that reached its last step (docs/execution.md). */
export enum ExecutionReportStatus {
  COMPLETED = 'completed',
  FAILED = 'failed',
  ABANDONED = 'abandoned',
}
registerEnumType(ExecutionReportStatus, { name: 'ExecutionReportStatus' });

@ObjectType('ExecutionModuleRef', { simpleResolvers: true, description: 'The module a step builds.' })
export class ExecutionModuleRef {
  @Field(() => String) key!: string;
  @Field(() => String) name!: string;
  @Field(() => String) kind!: string;
}

@ObjectType('ExecutionStepContent', { simpleResolvers: true, description: 'What an agent needs to carry out one step.' })
export class ExecutionStepContent {
  @Field(() => String) key!: string;
  @Field(() => ExecutionModuleRef) module!: ExecutionModuleRef;
  @Field(() => String) title!: string;
  @Field(() => String) instructions!: string;
  @Field(() => [String]) acceptance!: string[];
}

@ObjectType('ExecutionStart', { simpleResolvers: true, description: 'A new run: system prompt, every stage token and step 1.' })
export class ExecutionStart {
  @Field(() => ID) runId!: string;
  @Field(() => ExecutionRun) run!: ExecutionRun;
  @Field(() => String) systemPrompt!: string;
  @Field(() => Int) totalSteps!: number;
  @Field(() => [String], { description: 'stageTokens[n - 1] opens step n.' }) stageTokens!: string[];
  @Field(() => ExecutionStepContent, { description: "Step 1's content." }) step!: ExecutionStepContent;
  @Field(() => String, { description: "Step 1's token." }) nextToken!: string;
  @Field(() => Boolean, { description: 'Always false: a run is done after its last step.' }) dn!: boolean;
}

@ObjectType('ExecutionStepResult', { simpleResolvers: true })
export class ExecutionStepResult {
  @Field(() => ID) runId!: string;
  @Field(() => ExecutionRun) run!: ExecutionRun;
  @Field(() => Int) n!: number;
  @Field(() => ExecutionStepContent) step!: ExecutionStepContent;
  @Field(() => Boolean, { description: 'True on the last step, which completes the run.' }) dn!: boolean;
  @Field(() => String, { nullable: true, description: "Step n + 1's token; null after the last step." }) nextToken!: string | null;
}

@ObjectType('ExecutionStats', { simpleResolvers: true, description: "A blueprint's runs by status (counters; a fork starts at zero)." })
export class ExecutionStatsType {
  @Field(() => Int) started!: number;
  @Field(() => Int) completed!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int) abandoned!: number;
  @Field(() => Int) running!: number;
  @Field(() => Float, { nullable: true, description: 'completed / (completed + failed + abandoned); null before any run has ended.' }) successRate!:
    number | null;
}

export const ExecutionRunConnection = connectionType(ExecutionRun, 'ExecutionRun');
