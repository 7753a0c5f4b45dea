import { Field, ID, Int, ObjectType } from 'type-graphql';
import { connectionType } from '../platform/graphql/graphql-connection';
import { JSONObjectScalar } from '../platform/graphql/scalars';

@ObjectType('BlueprintVersion', { simpleResolvers: true, description: 'One change of a blueprint plan (owner only).' })
export class BlueprintVersionType {
  @Field(() => ID) id!: string;
  @Field(() => Int, { description: '1 at creation or fork, then one more per change.' }) number!: number;
  @Field(() => Date) createdAt!: Date;
  @Field(() => String, { description: '`create`, `fork`, or the tool type that made the change.' }) cause!: string;
  @Field(() => JSONObjectScalar, { description: 'What changed: sections touched, modules and steps added, removed and changed, tool details.' })
  changes!: Record<string, unknown>;
  authorId!: string;
}

export const BlueprintVersionConnection = connectionType(BlueprintVersionType, 'BlueprintVersion');
