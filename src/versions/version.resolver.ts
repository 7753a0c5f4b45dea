import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { LazyConnection } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { assertHistoryReader, versionsOf, type VersionEntry } from './history.service';
import { BlueprintVersionConnection, BlueprintVersionType } from './version.types';
import { principalById } from '../auth/principal.loaders';

@Resolver(() => Blueprint)
export class BlueprintVersionsResolver {
  @FieldResolver(() => BlueprintVersionConnection, {
    nullable: true,
    description: 'The plan history, newest first. Owner only: others get FORBIDDEN, anonymous callers UNAUTHENTICATED.',
  })
  versions(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<VersionEntry> {
    assertHistoryReader(ctx, bp);
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => versionsOf(ctx, bp.id, page));
  }
}

@Resolver(() => BlueprintVersionType)
export class VersionAuthorResolver {
  @FieldResolver(() => Principal)
  async author(@Root() v: BlueprintVersionType, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, v.authorId))!;
  }
}
