import { Arg, Ctx, Field, ID, InputType, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../platform/context';
import { removeBlueprint, transferBlueprint, updateBlueprint } from './blueprint-lifecycle.service';
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

  @Mutation(() => Blueprint, {
    description:
      'Moves a blueprint into a team (its owner, who is an owner, admin or member there), between teams, or out of its team (teamId null; the team owner only).',
  })
  transferBlueprint(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('teamId', () => ID, { nullable: true }) teamId: string | null,
  ): Promise<Blueprint> {
    return transferBlueprint(ctx, id, { team_id: teamId ?? null });
  }

  @Mutation(() => Boolean, { description: 'Deletes a blueprint (owner, or team owner or admin); its forks survive with no parent.' })
  async deleteBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await removeBlueprint(ctx, id);
    return true;
  }
}
