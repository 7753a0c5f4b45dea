import type { BlueprintView } from '../blueprints/blueprint.view';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Resolver, Root } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { nodeBlueprint, nodePlan, type NodeView } from './architecture.read';
import { ArchitectureModuleType, ArchitectureNodeType, ModuleDependencyType, ModuleDetailType } from './architecture.types';
import { moduleDependencies, moduleDetail, moduleViews, type ModuleDetail } from './zoom';

/**
 * A node at the three zoom levels. The card and the composition come with the node (computed in SQL) and
 * are plain fields of `ArchitectureNodeType`; the full blueprint, needed for modules and steps, is one
 * batched read for all nodes that ask, after the zoom fields charged it to the answer's budget
 * (`nodePlan`). A redacted node shows none of its blueprint.
 */
@Resolver(() => ArchitectureNodeType)
export class ArchitectureNodeResolver {
  @FieldResolver(() => ID, { nullable: true, description: 'Null when the node is redacted.' })
  blueprintId(@Root() node: NodeView): string | null {
    return node.redacted ? null : node.blueprintId;
  }

  @FieldResolver(() => Blueprint, { nullable: true, description: 'The whole blueprint; null when redacted.' })
  blueprint(@Root() node: NodeView, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): Promise<BlueprintView | null> {
    return nodeBlueprint(ctx, node, info);
  }

  @FieldResolver(() => [ArchitectureModuleType], { description: 'Architecture zoom: the modules, in plan order.' })
  async modules(@Root() node: NodeView, @Ctx() ctx: RequestContext): Promise<ArchitectureModuleType[]> {
    const plan = await nodePlan(ctx, node, 'modules');
    return plan ? moduleViews(plan) : [];
  }

  @FieldResolver(() => [ModuleDependencyType], { description: 'Architecture zoom: module dependency edges.' })
  async dependencies(@Root() node: NodeView, @Ctx() ctx: RequestContext): Promise<ModuleDependencyType[]> {
    const plan = await nodePlan(ctx, node, 'dependencies');
    return plan ? moduleDependencies(plan) : [];
  }

  @FieldResolver(() => ModuleDetailType, {
    nullable: true,
    description: 'Module detail zoom: one module with its steps in swimlanes; null when there is no such module.',
  })
  async module(@Root() node: NodeView, @Ctx() ctx: RequestContext, @Arg('key', () => String) key: string): Promise<ModuleDetail | null> {
    const plan = await nodePlan(ctx, node, 'module');
    return plan ? moduleDetail(plan, key) : null;
  }
}
