import { Arg, Ctx, Field, ID, InputType, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../platform/context';
import { removeBlueprint, updateBlueprint } from './blueprint-lifecycle.service';
import { Blueprint, Visibility } from './blueprint.entity';

@InputType('UpdateBlueprintInput', { description: 'Fields to change; the slug never changes.' })
class UpdateBlueprintInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => [String], { nullable: true }) tags?: string[] | null;
  @Field(() => Visibility, { nullable: true }) visibility?: Visibility | null;
}

/** Only the fields given (GraphQL nulls mean "leave it"). */
function given(input: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
}

@Resolver()
export class BlueprintLifecycleResolver {
  @Mutation(() => Blueprint, { description: "Changes a blueprint's name, description, tags or visibility (owner or team editor)." })
  updateBlueprint(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateBlueprintInput) input: UpdateBlueprintInput,
  ): Promise<Blueprint> {
    return updateBlueprint(ctx, id, given(input));
  }

  @Mutation(() => Boolean, { description: 'Deletes a blueprint (owner, or team owner or admin); its forks survive with no parent.' })
  async deleteBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await removeBlueprint(ctx, id);
    return true;
  }
}
