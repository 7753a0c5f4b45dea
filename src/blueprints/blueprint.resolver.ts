import type { BlueprintView } from './blueprint.view';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, Float, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { JSONObjectScalar } from '../platform/graphql/scalars';
import { Team } from '../teams/team.entity';
import type { RequestContext } from '../platform/context';
import { validationFailed } from '../platform/errors';
import { LazyConnection } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { viewerTeamRoles } from './access';
import { Blueprint } from './blueprint.entity';
import { ownedBlueprints, readBlueprint, starBlueprint, teamBlueprints, viewerHasStarred } from './blueprint.service';
import { projectionFor } from './blueprint.projection';
import { currentVersionOf } from './blueprint-version.service';
import { BlueprintConnection, PlanModuleType, PlanStepType } from './blueprint.types';
import { forkedFromRef } from './blueprint.wire';
import { pageItems, planFor, refuseOverBudgetPage } from './plan-read';
import { teamById } from '../teams/team.service';
import { principalById } from '../auth/principal.loaders';
import { orNull } from '../platform/graphql/or-null';
import { ViewerAfterRead } from '../platform/graphql/deferred-viewer';

@Resolver(() => Blueprint)
export class BlueprintResolver {
  @Query(() => Blueprint, { nullable: true, description: 'One blueprint by id or slug; null when missing or not visible to the caller.' })
  // Reads ctx.viewer only after its row (assertReadable), so its row's statement can carry the token lookup.
  @ViewerAfterRead()
  async blueprint(
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('id', () => ID, { nullable: true }) id?: string,
    @Arg('slug', () => String, { nullable: true }) slug?: string,
  ): Promise<BlueprintView | null> {
    const key = id ?? slug;
    if (!key || (id && slug)) throw validationFailed('Give exactly one of id or slug');
    return orNull(readBlueprint(ctx, key, projectionFor(info)));
  }

  @FieldResolver(() => Principal)
  async owner(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, bp.owner.id))!;
  }

  @FieldResolver(() => Team, { nullable: true, description: 'The team this blueprint belongs to, when the caller is a member of it.' })
  async team(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<Team | null> {
    // A team shows its members, audit log and analytics: only its members get to open it.
    if (!bp.team || !(await viewerTeamRoles(ctx)).has(bp.team.id)) return null;
    return teamById(ctx, bp.team.id);
  }

  @FieldResolver(() => Blueprint, { nullable: true, description: 'The blueprint this one was forked from, when the caller may see it.' })
  forkedFrom(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<BlueprintView | null> {
    return forkedFromRef(ctx, bp);
  }

  @FieldResolver(() => [PlanModuleType])
  async modules(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<PlanModuleType[]> {
    return (await planFor(ctx, bp, 'modules')).modules;
  }

  @FieldResolver(() => [PlanStepType])
  async steps(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<PlanStepType[]> {
    return (await planFor(ctx, bp, 'steps')).steps;
  }

  @FieldResolver(() => JSONObjectScalar)
  async configuration(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<Record<string, unknown>> {
    return (await planFor(ctx, bp, 'configuration')).configuration;
  }

  @FieldResolver(() => JSONObjectScalar)
  async designSystem(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<Record<string, unknown>> {
    return (await planFor(ctx, bp, 'designSystem')).designSystem;
  }

  // A resolver, not an entity getter with @Field: type-graphql copies plain-row roots of getter fields into entities.
  @FieldResolver(() => Float, { nullable: true, description: 'Completed runs over ended runs; null before any run has ended.' })
  successRate(@Root() bp: BlueprintView): number | null {
    return bp.successRate;
  }

  @FieldResolver(() => Float, { nullable: true, description: 'Mean review rating (1-5); null without reviews.' })
  ratingAverage(@Root() bp: BlueprintView): number | null {
    return bp.ratingAverage;
  }

  @FieldResolver(() => Int, { description: 'The current version number: the baseVersion an editor sends to updateBlueprintPlan.' })
  version(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<number> {
    return currentVersionOf(ctx, bp.id);
  }

  @FieldResolver(() => Boolean)
  viewerHasStarred(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<boolean> {
    return viewerHasStarred(ctx, bp.id);
  }

  @Mutation(() => Blueprint)
  starBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<Blueprint> {
    return starBlueprint(ctx, id, true);
  }

  @Mutation(() => Blueprint)
  unstarBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<Blueprint> {
    return starBlueprint(ctx, id, false);
  }
}

@Resolver(() => Team)
export class TeamBlueprintsResolver {
  @FieldResolver(() => BlueprintConnection, { description: "The team's blueprints, newest first." })
  blueprints(
    @Root() team: Team,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Info() info?: GraphQLResolveInfo,
  ): LazyConnection<BlueprintView> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    const projection = projectionFor(info);
    return new LazyConnection(page, () =>
      teamBlueprints(ctx, team.id, page, projection).then((p) => refuseOverBudgetPage(ctx, projection, 'Team.blueprints', p, pageItems)),
    );
  }
}

@Resolver(() => Principal)
export class PrincipalBlueprintsResolver {
  @FieldResolver(() => BlueprintConnection, {
    description: "This principal's blueprints, newest first: public ones, and to the principal themself private ones too.",
  })
  blueprints(
    @Root() owner: Principal,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Info() info?: GraphQLResolveInfo,
  ): LazyConnection<BlueprintView> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    const projection = projectionFor(info);
    return new LazyConnection(page, () =>
      ownedBlueprints(ctx, owner.id, page, projection).then((p) => refuseOverBudgetPage(ctx, projection, 'Principal.blueprints', p, pageItems)),
    );
  }
}
