import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, Field, Float, FieldResolver, Int, ObjectType, Resolver, Root } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { breedSuggestions } from './breed-suggestions.service';

@ObjectType('BreedSuggestion', {
  simpleResolvers: true,
  description: 'A blueprint worth breeding with another: it fits, and it brings modules the other lacks.',
})
class BreedSuggestionType {
  @Field(() => Blueprint) blueprint!: Blueprint;
  @Field(() => Float, { description: 'Harmonic mean of graph similarity and the share of its modules that are new (0..1).' }) score!: number;
  @Field(() => [String]) sharedModules!: string[];
  @Field(() => [String]) newModules!: string[];
}

@Resolver(() => Blueprint)
export class BreedSuggestionsResolver {
  @FieldResolver(() => [BreedSuggestionType], { description: 'Readable blueprints worth breeding with this one, best first (authenticated callers).' })
  async breedSuggestions(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('limit', () => Int, { defaultValue: 10 }) limit: number,
  ): Promise<BreedSuggestionType[]> {
    return (await breedSuggestions(ctx, bp.id, limit)).items;
  }
}
