import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { Visibility } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { removeArchitecture, updateArchitecture } from './architecture-lifecycle.service';
import type { ArchitectureRecord } from './architecture.read';
import { ArchitectureType } from './architecture.types';

@Resolver()
export class ArchitectureLifecycleResolver {
  @Mutation(() => ArchitectureType, {
    description: "Changes an architecture's name, description or visibility (owner or team editor); the slug never changes.",
  })
  updateArchitecture(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('name', () => String, { nullable: true }) name?: string | null,
    @Arg('description', () => String, { nullable: true }) description?: string | null,
    @Arg('visibility', () => Visibility, { nullable: true }) visibility?: Visibility | null,
  ): Promise<ArchitectureRecord> {
    return updateArchitecture(ctx, slug, {
      ...(name != null ? { name } : {}),
      ...(description != null ? { description } : {}),
      ...(visibility != null ? { visibility } : {}),
    });
  }

  @Mutation(() => Boolean, { description: 'Deletes an architecture (owner, or team owner or admin); its blueprints stay.' })
  async deleteArchitecture(@Ctx() ctx: RequestContext, @Arg('slug', () => String) slug: string): Promise<boolean> {
    await removeArchitecture(ctx, slug);
    return true;
  }
}
