import type { BlueprintView } from '../blueprints/blueprint.view';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, ID, Info, Int, Mutation, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import { projectionFor } from '../blueprints/blueprint.projection';
import { edgeNodes, pageItems, refuseOverBudgetPage } from '../blueprints/plan-read';
import { BlueprintConnection } from '../blueprints/blueprint.types';
import type { RequestContext } from '../platform/context';
import { LazyConnection, selectedFields } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { forkBlueprint } from './fork.service';
import { forkTree, forkTreePlan, prefetchedForks, type LoadedConnection } from './fork-tree';
import { LineageKind } from './lineage-link.entity';
import { childrenOf, forkCountOf, forksOf, lineageGraph, parentsOf, type LineageDirection, type Relative } from './lineage.service';

enum LineageDirectionEnum {
  UP = 'UP',
  DOWN = 'DOWN',
  BOTH = 'BOTH',
}
registerEnumType(LineageDirectionEnum, { name: 'LineageDirection', description: 'UP: ancestors; DOWN: descendants; BOTH: both.' });

@ObjectType('LineageRelative', { simpleResolvers: true })
class LineageRelative {
  @Field(() => LineageKind) kind!: LineageKind;
  @Field(() => Blueprint) blueprint!: BlueprintView;
}

@ObjectType('LineageEdge', { simpleResolvers: true })
class LineageEdge {
  @Field(() => Blueprint) parent!: BlueprintView;
  @Field(() => Blueprint) child!: BlueprintView;
  @Field(() => LineageKind) kind!: LineageKind;
}

@ObjectType('LineageNode', { simpleResolvers: true })
class LineageNode {
  @Field(() => Blueprint) blueprint!: BlueprintView;
  @Field(() => Int, { description: 'Links between this blueprint and the root (0 for the root).' }) depth!: number;
}

@ObjectType('LineageGraph', { simpleResolvers: true })
class LineageGraphType {
  @Field(() => [Blueprint]) nodes!: BlueprintView[];
  @Field(() => [LineageNode]) nodesWithDepth!: LineageNode[];
  @Field(() => [LineageEdge]) edges!: LineageEdge[];
}

@Resolver(() => Blueprint)
export class LineageResolver {
  @FieldResolver(() => [LineageRelative], { description: 'What this blueprint was forked or bred from (visible ones only).' })
  parents(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): Promise<Relative[]> {
    return parentsOf(ctx, bp.id, projectionFor(info));
  }

  @FieldResolver(() => [LineageRelative], { description: 'Forks and breed offspring of this blueprint (visible ones only).' })
  children(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): Promise<Relative[]> {
    return childrenOf(ctx, bp.id, projectionFor(info));
  }

  @FieldResolver(() => BlueprintConnection, { description: 'Public forks, oldest first.' })
  forks(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<BlueprintView> | LoadedConnection | Promise<LoadedConnection> {
    // Inside a fork tree read in one statement, this level is already loaded (withPrefetchedForks answers it
    // first); at the top of one, load it. A page whose plans cannot fit the answer is refused before its items resolve.
    const loaded = prefetchedForks(bp, info);
    if (loaded) return loaded;
    const tree = forkTreePlan(info, ctx.config.limits);
    if (tree) return forkTree(ctx, bp.id, tree).then((c) => refuseOverBudgetPage(ctx, c.projection ?? null, 'Blueprint.forks', c, edgeNodes));
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    const selected = selectedFields(info);
    const wantsPage = selected.has('edges') || selected.has('pageInfo');
    const projection = projectionFor(info);
    return new LazyConnection(
      page,
      () => forksOf(ctx, bp.id, page, projection).then((p) => refuseOverBudgetPage(ctx, projection, 'Blueprint.forks', p, pageItems)),
      wantsPage ? undefined : () => forkCountOf(ctx, bp.id),
    );
  }

  @FieldResolver(() => LineageGraphType, { description: 'The ancestry graph around this blueprint.' })
  async lineage(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('direction', () => LineageDirectionEnum, { defaultValue: LineageDirectionEnum.BOTH }) direction: LineageDirectionEnum,
    @Arg('depth', () => Int, { defaultValue: 10 }) depth: number,
  ): Promise<LineageGraphType> {
    const graph = await lineageGraph(ctx, bp.id, direction as LineageDirection, depth, projectionFor(info));
    const byId = new Map(graph.nodes.map((n) => [n.blueprint.id, n.blueprint]));
    return {
      nodes: graph.nodes.map((n) => n.blueprint),
      nodesWithDepth: graph.nodes,
      edges: graph.edges.map((e) => ({ parent: byId.get(e.parentId)!, child: byId.get(e.childId)!, kind: e.kind })),
    };
  }

  @Mutation(() => Blueprint, { description: 'Forks any public blueprint, or a private one the caller owns: a copy of its plan only, owned by the caller.' })
  forkBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<Blueprint> {
    return forkBlueprint(ctx, id);
  }
}
