import { Arg, Ctx, Field, ID, Int, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { JsonDiff, KeyedDiff, PlanDiff } from '../plans/algebra';
import type { RequestContext } from '../platform/context';
import { compareWithParent, type ForkComparison, type KeyChange } from './compare.service';

enum ComparisonStatus {
  IDENTICAL = 'identical',
  AHEAD = 'ahead',
  BEHIND = 'behind',
  DIVERGED = 'diverged',
}
registerEnumType(ComparisonStatus, { name: 'ComparisonStatus', description: 'AHEAD: only the fork changed; BEHIND: only the parent; DIVERGED: both.' });

enum KeyChangeKind {
  ADDED = 'added',
  REMOVED = 'removed',
  CHANGED = 'changed',
}
registerEnumType(KeyChangeKind, { name: 'KeyChangeKind' });

@ObjectType('ChangedItem', { simpleResolvers: true })
class ChangedItemType {
  @Field(() => String) key!: string;
  @Field(() => [String]) fields!: string[];
}

@ObjectType('KeyedDiff', { simpleResolvers: true, description: 'Modules or steps added, removed and changed, matched by key.' })
class KeyedDiffType {
  @Field(() => [String]) added!: string[];
  @Field(() => [String]) removed!: string[];
  @Field(() => [ChangedItemType]) changed!: ChangedItemType[];
}

@ObjectType('StepsDiff', { simpleResolvers: true })
class StepsDiffType extends KeyedDiffType {
  @Field(() => Boolean, { description: 'Steps on both sides run in a different relative order.' }) reordered!: boolean;
}

@ObjectType('JsonDiff', { simpleResolvers: true, description: 'Paths (e.g. `theme.colors.primary`) added, removed and changed.' })
class JsonDiffType {
  @Field(() => [String]) added!: string[];
  @Field(() => [String]) removed!: string[];
  @Field(() => [String]) changed!: string[];
}

@ObjectType('PlanDiff', { simpleResolvers: true })
class PlanDiffType {
  @Field(() => KeyedDiffType) modules!: KeyedDiff;
  @Field(() => StepsDiffType) steps!: KeyedDiff & { reordered: boolean };
  @Field(() => JsonDiffType) configuration!: JsonDiff;
  @Field(() => JsonDiffType) designSystem!: JsonDiff;
  @Field(() => [String]) sectionsTouched!: string[];
  @Field(() => Boolean) isEmpty!: boolean;
}

@ObjectType('KeyChange', { simpleResolvers: true })
class KeyChangeType {
  @Field(() => KeyChangeKind) change!: KeyChange['change'];
  @Field(() => [String], { description: 'Fields that differ from the fork point (CHANGED only).' }) fields!: string[];
}

@ObjectType('KeyComparison', { simpleResolvers: true, description: 'One module or step touched since the fork point, on either side.' })
class KeyComparisonType {
  @Field(() => String) key!: string;
  @Field(() => KeyChangeType, { nullable: true, description: 'What the fork did to it.' }) ahead!: KeyChange | null;
  @Field(() => KeyChangeType, { nullable: true, description: 'What the parent did to it.' }) behind!: KeyChange | null;
  @Field(() => Boolean, { description: 'Both sides touched it and now differ.' }) conflict!: boolean;
}

@ObjectType('ForkComparison', { simpleResolvers: true, description: 'A fork against its parent since the fork point.' })
class ForkComparisonType {
  @Field(() => Blueprint) blueprint!: Blueprint;
  @Field(() => Blueprint) parent!: Blueprint;
  @Field(() => Int, { nullable: true, description: "The parent's version the fork was taken from." }) baseVersion!: number | null;
  @Field(() => Int, { nullable: true, description: "The parent's newest version." }) parentVersion!: number | null;
  @Field(() => ComparisonStatus) status!: ComparisonStatus;
  @Field(() => PlanDiffType, { description: 'What the fork changed since the fork point.' }) ahead!: PlanDiff;
  @Field(() => PlanDiffType, { description: 'What the parent changed since the fork point.' }) behind!: PlanDiff;
  @Field(() => [KeyComparisonType]) modules!: KeyComparisonType[];
  @Field(() => [KeyComparisonType]) steps!: KeyComparisonType[];
}

@Resolver()
export class CompareResolver {
  @Query(() => ForkComparisonType, {
    description: 'A fork against its parent: what is ahead and behind, per module and step. Not a fork: VALIDATION_FAILED; parent not visible: NOT_FOUND.',
  })
  async compareWithParent(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<ForkComparisonType> {
    const c: ForkComparison = await compareWithParent(ctx, id);
    return { ...c, blueprint: c.fork, status: c.status as ComparisonStatus };
  }
}
