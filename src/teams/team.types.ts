import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { connectionType } from '../platform/graphql/graphql-connection';
import { JSONObjectScalar } from '../platform/graphql/scalars';

/** GraphQL shapes of the team's audit log and analytics; roots are the service's plain records. */

@ObjectType('AuditActor', { simpleResolvers: true, description: 'Who made an audited change.' })
export class AuditActorType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
}

@ObjectType('TeamAuditEntry', {
  simpleResolvers: true,
  description: 'One change to a team, its members, conventions, blueprints or architectures. Entries are never changed or deleted.',
})
export class TeamAuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => Date) at!: Date;
  @Field(() => AuditActorType) actor!: AuditActorType;
  @Field(() => String, { description: 'e.g. team.updated, member.added, blueprint.transferred_in, blueprint.tool_applied (docs/teams.md lists them).' })
  action!: string;
  @Field(() => String, { description: 'team, member, blueprint or architecture.' }) targetType!: string;
  @Field(() => String) targetId!: string;
  @Field(() => JSONObjectScalar) details!: Record<string, unknown>;
}

export const TeamAuditEntryConnection = connectionType(TeamAuditEntryType, 'TeamAuditEntry');

@ObjectType('TeamAnalyticsCounts', { simpleResolvers: true, description: 'Counts over a day or the whole window (UTC days).' })
export class TeamAnalyticsCountsType {
  @Field(() => Int) blueprintsCreated!: number;
  @Field(() => Int, { description: 'Forks of team blueprints.' }) forks!: number;
  @Field(() => Int, { description: 'Stars given to team blueprints.' }) starsReceived!: number;
  @Field(() => Int) executionsStarted!: number;
  @Field(() => Int) executionsCompleted!: number;
  @Field(() => Int) executionsFailed!: number;
  @Field(() => Int) executionsAbandoned!: number;
  @Field(() => Float, { nullable: true, description: 'completed / (completed + failed + abandoned) of runs ended; null when none ended.' }) successRate!:
    number | null;
}

@ObjectType('TeamAnalyticsDay', { simpleResolvers: true })
export class TeamAnalyticsDayType extends TeamAnalyticsCountsType {
  @Field(() => String, { description: 'A UTC day, YYYY-MM-DD.' }) day!: string;
}

@ObjectType('TeamBlueprintActivity', { simpleResolvers: true, description: 'A team blueprint ranked by activity in the window.' })
export class TeamBlueprintActivityType {
  @Field(() => ID) id!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) name!: string;
  @Field(() => Int) forks!: number;
  @Field(() => Int) stars!: number;
  @Field(() => Int) executionsStarted!: number;
  @Field(() => Int, { description: 'forks + stars + executions started.' }) activity!: number;
}

@ObjectType('TeamAnalytics', { simpleResolvers: true, description: 'The same numbers as GET /api/teams/:id/analytics.' })
export class TeamAnalyticsType {
  @Field(() => Int) windowDays!: number;
  @Field(() => String, { description: 'First day of the window (UTC).' }) from!: string;
  @Field(() => String, { description: 'Last day of the window: today (UTC).' }) to!: string;
  @Field(() => TeamAnalyticsCountsType) totals!: TeamAnalyticsCountsType;
  @Field(() => [TeamAnalyticsDayType]) days!: TeamAnalyticsDayType[];
  @Field(() => [TeamBlueprintActivityType], { description: 'The ten most active team blueprints, most active first.' })
  topBlueprints!: TeamBlueprintActivityType[];
}
