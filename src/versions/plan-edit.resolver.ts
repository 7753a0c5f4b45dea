import { Arg, Ctx, Field, ID, InputType, Int, Mutation, Resolver } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { JSONObjectScalar } from '../platform/graphql/scalars';
import { updateBlueprintPlan } from './plan-edit.service';

@InputType('PlanModuleInput', { description: 'A module of a plan (docs/api.md).' })
export class PlanModuleInput {
  @Field(() => String) key!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) summary?: string | null;
  @Field(() => String) kind!: string;
  @Field(() => [String], { nullable: true }) dependsOn?: string[] | null;
}

@InputType('PlanStepInput', { description: 'A step of a plan; steps run in list order.' })
export class PlanStepInput {
  @Field(() => String) key!: string;
  @Field(() => String) moduleKey!: string;
  @Field(() => String) title!: string;
  @Field(() => String) instructions!: string;
  @Field(() => [String], { nullable: true }) acceptance?: string[] | null;
}

@InputType('BlueprintPlanInput', { description: 'A whole plan, and the version the editor started from.' })
class BlueprintPlanInput {
  @Field(() => [PlanModuleInput]) modules!: PlanModuleInput[];
  @Field(() => [PlanStepInput]) steps!: PlanStepInput[];
  @Field(() => JSONObjectScalar) configuration!: Record<string, unknown>;
  @Field(() => JSONObjectScalar) designSystem!: Record<string, unknown>;
  @Field(() => Int, { description: 'Blueprint.version when the editor opened the plan; a stale one is CONFLICT.' }) baseVersion!: number;
}

/** GraphQL modules in the wire form the service checks (absent optional fields left out). */
export function moduleInputToWire(m: PlanModuleInput): Record<string, unknown> {
  return {
    key: m.key,
    name: m.name,
    kind: m.kind,
    ...(m.summary != null ? { summary: m.summary } : {}),
    ...(m.dependsOn != null ? { depends_on: m.dependsOn } : {}),
  };
}

export function stepInputToWire(s: PlanStepInput): Record<string, unknown> {
  return {
    key: s.key,
    module_key: s.moduleKey,
    title: s.title,
    instructions: s.instructions,
    ...(s.acceptance != null ? { acceptance: s.acceptance } : {}),
  };
}

@Resolver()
export class PlanEditResolver {
  @Mutation(() => Blueprint, {
    description:
      "Replaces a blueprint's plan (owner or team editor) after the plan rules; a new version (cause edit). CONFLICT with extensions.details.current_version when the blueprint moved past baseVersion.",
  })
  async updateBlueprintPlan(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => BlueprintPlanInput) input: BlueprintPlanInput,
  ): Promise<Blueprint> {
    const body = {
      modules: input.modules.map(moduleInputToWire),
      steps: input.steps.map(stepInputToWire),
      configuration: input.configuration,
      design_system: input.designSystem,
      base_version: input.baseVersion,
    };
    return (await updateBlueprintPlan(ctx, id, body)).blueprint;
  }
}
