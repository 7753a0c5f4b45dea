import type { BlueprintView } from '../blueprints/blueprint.view';
import { Ctx, Field, FieldResolver, ID, ObjectType, Resolver, Root } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { provenanceOf } from './provenance.service';

@ObjectType('ModuleProvenance', {
  simpleResolvers: true,
  description: 'Where a module of a combined blueprint (breed, splice, weave, style_transfer) came from.',
})
class ModuleProvenanceType {
  @Field(() => String, { description: 'The module key in this blueprint.' }) moduleKey!: string;
  @Field(() => String, { description: 'The module key in the source blueprint.' }) sourceModuleKey!: string;
  @Field(() => Blueprint, { nullable: true, description: 'The source blueprint; null when it was deleted or the caller may not see it.' })
  sourceBlueprint!: BlueprintView | null;
  @Field(() => ID, { nullable: true, description: 'The tool operation that combined it.' }) operationId!: string | null;
}

@Resolver(() => Blueprint)
export class ProvenanceResolver {
  @FieldResolver(() => [ModuleProvenanceType], { description: 'The source of each module, for blueprints made by combining others; empty otherwise.' })
  provenance(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<ModuleProvenanceType[]> {
    return provenanceOf(ctx, bp);
  }
}
