import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { canRead, guardOf } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import type { RequestContext } from '../platform/context';
import { LazyConnection } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { ExecutionRun } from './execution-run.entity';
import { executionsOf, executionStatsOf } from './execution.history';
import { executionStep, getExecutionRun, reportExecution, startExecution } from './execution.service';
import { ExecutionReportStatus, ExecutionRunConnection, ExecutionStart, ExecutionStatsType, ExecutionStepResult } from './execution.types';
import { principalById } from '../auth/principal.loaders';
import { orNull } from '../platform/graphql/or-null';

@Resolver(() => ExecutionRun)
export class ExecutionResolver {
  @Mutation(() => ExecutionStart, { description: 'Starts a run of a blueprint the caller can read (GET /api/blueprints/:id/start).' })
  async startExecution(@Ctx() ctx: RequestContext, @Arg('blueprintId', () => ID) blueprintId: string): Promise<ExecutionStart> {
    const v = await startExecution(ctx, blueprintId);
    return {
      runId: v.run.id,
      run: v.run,
      systemPrompt: v.systemPrompt,
      totalSteps: v.run.totalSteps,
      stageTokens: v.stageTokens,
      step: v.step,
      nextToken: v.stageTokens[0]!,
      dn: false,
    };
  }

  @Mutation(() => ExecutionStepResult, { description: 'Fetches step n with its stage token; repeating a fetch answers the same and counts nothing.' })
  async executionStep(
    @Ctx() ctx: RequestContext,
    @Arg('blueprintId', () => ID) blueprintId: string,
    @Arg('n', () => Int) n: number,
    @Arg('token', () => String) token: string,
  ): Promise<ExecutionStepResult> {
    const v = await executionStep(ctx, blueprintId, n, token);
    return { runId: v.run.id, run: v.run, n: v.n, step: v.step, dn: v.dn, nextToken: v.nextToken };
  }

  @Mutation(() => ExecutionRun, { description: "The caller's verdict on its running run (POST /api/executions/:runId/report)." })
  reportExecution(
    @Ctx() ctx: RequestContext,
    @Arg('runId', () => ID) runId: string,
    @Arg('status', () => ExecutionReportStatus) status: ExecutionReportStatus,
    @Arg('notes', () => String, { nullable: true }) notes?: string,
  ): Promise<ExecutionRun> {
    return reportExecution(ctx, runId, status, notes ?? null);
  }

  @Query(() => ExecutionRun, { nullable: true, description: "One run: the caller's own, or any run of a blueprint the caller owns or edits; null otherwise." })
  async executionRun(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<ExecutionRun | null> {
    return orNull(getExecutionRun(ctx, id));
  }

  @FieldResolver(() => Blueprint, { nullable: true, description: 'The blueprint run; null if the caller may no longer read it.' })
  async blueprint(@Root() run: ExecutionRun, @Ctx() ctx: RequestContext): Promise<Blueprint | null> {
    const bp = await blueprintLoaders(ctx).byId.load(run.blueprint.id);
    return bp && (await canRead(ctx, guardOf(bp))) ? bp : null;
  }

  @FieldResolver(() => Principal, { description: 'Who ran it.' })
  async principal(@Root() run: ExecutionRun, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, run.principal.id))!;
  }
}

@Resolver(() => Blueprint)
export class BlueprintExecutionResolver {
  @FieldResolver(() => ExecutionRunConnection, {
    description: 'Execution history, newest first: all runs for the owner and team editors, only their own runs for others.',
  })
  executions(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ExecutionRun> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => executionsOf(ctx, bp, page));
  }

  @FieldResolver(() => ExecutionStatsType)
  executionStats(@Root() bp: BlueprintView): ExecutionStatsType {
    return executionStatsOf(bp);
  }
}
