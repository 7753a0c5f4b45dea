import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../platform/context';
import { Node } from '../platform/graphql/graphql-node';
import { blueprintLoaders } from './blueprint.loaders';
import { canRead, guardOf } from './access';
import { isUuid } from '../platform/sql/ids';

/**
 * `Query.node(id)`. Ids are UUIDs, unique across all tables, so the id alone says where to look; today
 * blueprints are the only Node type (another type adds its lookup here).
 */
@Resolver()
export class NodeResolver {
  @Query(() => Node, { nullable: true, description: 'Any object by its global id; null when missing or not visible to the caller.' })
  async node(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<Node | null> {
    if (!isUuid(id)) return null;
    const bp = await blueprintLoaders(ctx).byId.load(id.toLowerCase());
    return bp && (await canRead(ctx, guardOf(bp))) ? bp : null;
  }
}
