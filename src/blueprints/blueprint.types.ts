import { Field, ObjectType } from 'type-graphql';
import { connectionType } from '../platform/graphql/graphql-connection';
import { Blueprint } from './blueprint.entity';

@ObjectType('PlanModule', { simpleResolvers: true, description: 'A part of the system a blueprint builds.' })
export class PlanModuleType {
  @Field(() => String) key!: string;
  @Field(() => String) name!: string;
  @Field(() => String) summary!: string;
  @Field(() => String, { description: 'A lowercase word: frontend, backend, service, data, infra...' }) kind!: string;
  @Field(() => [String]) dependsOn!: string[];
}

@ObjectType('PlanStep', { simpleResolvers: true, description: 'One build step; steps run in list order.' })
export class PlanStepType {
  @Field(() => String) key!: string;
  @Field(() => String) moduleKey!: string;
  @Field(() => String) title!: string;
  @Field(() => String) instructions!: string;
  @Field(() => [String]) acceptance!: string[];
}

export const BlueprintConnection = connectionType(Blueprint, 'Blueprint');
