import type { BlueprintView } from '../blueprints/blueprint.view';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Field, Float, Info, Int, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import { projectionFor } from '../blueprints/blueprint.projection';
import { pageItems, refuseOverBudgetPage } from '../blueprints/plan-read';
import { BlueprintConnection } from '../blueprints/blueprint.types';
import type { RequestContext } from '../platform/context';
import { LazyConnection, selectedFields } from '../platform/graphql/graphql-connection';
import { ViewerAfterRead } from '../platform/graphql/deferred-viewer';
import { pageFromConnectionArgs, pageFromQuery } from '../platform/pagination';
import { EXACT_TOTAL_AHEAD, normaliseTagList, parseWindowDays, searchRegistry, type RegistryPage, type RegistrySort } from './registry.service';
import { trending } from './trending.service';

enum RegistrySortEnum {
  RELEVANCE = 'relevance',
  STARS = 'stars',
  RECENT = 'recent',
  TRENDING = 'trending',
  RATING = 'rating',
}
registerEnumType(RegistrySortEnum, { name: 'RegistrySort' });

@ObjectType('TrendingActivity', { simpleResolvers: true })
class TrendingActivity {
  @Field(() => Int) stars!: number;
  @Field(() => Int) forks!: number;
  @Field(() => Int) executions!: number;
}

@ObjectType('TrendingEntry', { simpleResolvers: true })
class TrendingEntryType {
  @Field(() => Blueprint) blueprint!: BlueprintView;
  @Field(() => Float, { description: 'Weighted activity inside the window.' }) score!: number;
  @Field(() => TrendingActivity) activity!: TrendingActivity;
}

@ObjectType('RegistryConnection', { simpleResolvers: true }) // plain values: see connectionType
class RegistryConnection extends BlueprintConnection {
  @Field(() => Boolean, {
    description: `Whether totalCount counts every match. Counting stops ${EXACT_TOTAL_AHEAD} matches past the page's offset; when it does, this is false and there are more than totalCount.`,
  })
  totalCountExact!: boolean;
}

/** A registry page whose total may stop short (`RegistryPage.totalExact`). */
class LazyRegistryConnection extends LazyConnection<BlueprintView, RegistryPage> {
  get totalCountExact(): Promise<boolean> {
    return this.loadPage().then((p) => p.totalExact);
  }
}

@Resolver()
export class RegistryResolver {
  @Query(() => RegistryConnection, { description: 'Public blueprints by keyword (full-text, ranked) and tags (all must match).' })
  // Public rows only: nothing reads ctx.viewer before the page's statement, which carries the token lookup.
  @ViewerAfterRead()
  registry(
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('q', () => String, { nullable: true }) q?: string,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('sort', () => RegistrySortEnum, { nullable: true }) sort?: RegistrySortEnum,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyRegistryConnection {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    // The total is counted only when asked for: without it, a filtered page skips most of its PostgreSQL time.
    const fields = selectedFields(info);
    const counted = fields.has('totalCount') || fields.has('totalCountExact');
    const query = { q: q ?? undefined, tags: normaliseTagList(tags ?? []), sort: sort as RegistrySort | undefined };
    const projection = projectionFor(info);
    return new LazyRegistryConnection(page, () =>
      searchRegistry(ctx, query, page, projection, counted).then((p) => refuseOverBudgetPage(ctx, projection, 'Query.registry', p, pageItems)),
    );
  }

  @Query(() => [TrendingEntryType], {
    description:
      'Public blueprints ranked by what works inside the window: distinct principals (never the owner or team members) who starred (1), forked (3) or finished a run (5).',
  })
  // Public rows only, as `registry`: its statement carries the token lookup.
  @ViewerAfterRead()
  async trending(
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('windowDays', () => Int, { nullable: true }) windowDays?: number,
  ): Promise<TrendingEntryType[]> {
    const { limit: n } = pageFromQuery({ limit }, ctx.config.limits);
    const entries = await trending(ctx, parseWindowDays(windowDays, 'windowDays'), n, projectionFor(info));
    return entries.map((e) => ({ blueprint: e.blueprint, score: e.score, activity: { stars: e.stars, forks: e.forks, executions: e.executions } }));
  }
}
