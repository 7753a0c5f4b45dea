import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription, registerEnumType } from 'type-graphql';
import { requireViewer } from '../auth/auth.service';
import type { RequestContext } from '../platform/context';
import { StreamEnd, assertConnectionAuthorized, sameSight, unlessEnded } from '../platform/live/live';
import { liveStream } from '../platform/live/live-feed';
import { JSONObjectScalar } from '../platform/graphql/scalars';
import { cancelOperation, getOperation, startOperation, submitStep, type OperationView } from './operation.service';
import { operationStream, type OperationUpdate } from './operation-stream';
import { OperationStatus } from './tool-operation.entity';
import { toolTypes } from './tool-types';
import { orNull } from '../platform/graphql/or-null';
import { startEvent } from '../platform/http/request-context';

/** GraphQL enum names are upper case (`STYLE_TRANSFER`); values are the REST `tool_type` strings. */
const ToolTypeEnum = Object.fromEntries(toolTypes.map((t) => [t.toUpperCase(), t])) as Record<string, string>;
registerEnumType(ToolTypeEnum, { name: 'ToolType', description: 'The 25 tool types.' });

@ObjectType('ToolOperation', { simpleResolvers: true })
class ToolOperationType {
  @Field(() => ID) id!: string;
  @Field(() => ToolTypeEnum) toolType!: string;
  @Field(() => OperationStatus) status!: OperationStatus;
  @Field(() => Int, { nullable: true, description: 'The step awaiting a submission; null once the operation is over.' }) step!: number | null;
  @Field(() => Int) totalSteps!: number;
  @Field(() => String, { nullable: true }) stepTitle!: string | null;
  @Field(() => String, { nullable: true }) prompt!: string | null;
  @Field(() => JSONObjectScalar, { nullable: true, description: 'JSON Schema the next submission must satisfy.' }) submissionSchema!: Record<
    string,
    unknown
  > | null;
  @Field(() => String, { nullable: true, description: 'The single-use token for the next submission (start and submit only).' }) token!: string | null;
  @Field(() => Boolean) done!: boolean;
  @Field(() => JSONObjectScalar, { nullable: true }) result!: Record<string, unknown> | null;
  @Field(() => [ID]) sourceBlueprintIds!: string[];
  @Field(() => JSONObjectScalar) params!: Record<string, unknown>;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

function toType(v: OperationView): ToolOperationType {
  const op = v.operation;
  return {
    id: op.id,
    toolType: op.toolType,
    status: op.status,
    step: op.status === OperationStatus.ACTIVE ? op.step : null,
    totalSteps: op.totalSteps,
    stepTitle: v.stepTitle,
    prompt: v.prompt,
    submissionSchema: v.submissionSchema,
    token: v.token,
    done: v.done,
    result: op.result,
    sourceBlueprintIds: op.sourceIds,
    params: op.params,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
  };
}

@InputType('StartToolOperationInput')
class StartToolOperationInput {
  @Field(() => ToolTypeEnum) toolType!: string;
  @Field(() => [ID], { nullable: true }) sourceBlueprintIds?: string[];
  @Field(() => JSONObjectScalar, { nullable: true }) params?: Record<string, unknown>;
}

@Resolver()
export class OperationResolver {
  @Query(() => ToolOperationType, { nullable: true, description: "One of the caller's operations; null when not found." })
  async operation(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<ToolOperationType | null> {
    const operation = await orNull(getOperation(ctx, id));
    return operation && toType(operation);
  }

  @Mutation(() => ToolOperationType)
  async startToolOperation(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => StartToolOperationInput) input: StartToolOperationInput,
  ): Promise<ToolOperationType> {
    return toType(await startOperation(ctx, { toolType: input.toolType, sourceBlueprintIds: input.sourceBlueprintIds ?? [], params: input.params ?? {} }));
  }

  @Mutation(() => ToolOperationType)
  async submitToolStep(
    @Ctx() ctx: RequestContext,
    @Arg('operationId', () => ID) operationId: string,
    @Arg('token', () => String) token: string,
    @Arg('submission', () => JSONObjectScalar) submission: Record<string, unknown>,
  ): Promise<ToolOperationType> {
    return toType(await submitStep(ctx, operationId, token, submission));
  }

  @Mutation(() => ToolOperationType)
  async cancelToolOperation(@Ctx() ctx: RequestContext, @Arg('operationId', () => ID) operationId: string): Promise<ToolOperationType> {
    return toType(await cancelOperation(ctx, operationId));
  }

  @Subscription(() => ToolOperationType, {
    description: "One of the caller's operations: its current state first, then every status or step change; the stream ends once the operation is over.",
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      const id = args.id as string;
      requireViewer(ctx);
      await assertConnectionAuthorized(ctx);
      await getOperation(ctx, id); // 404 for operations of others, before anything is sent
      // liveStream re-checks the connection's token before every event (the payload names only the
      // operation and its owner, both the caller's own); operationStream adds the current
      // state first and ends the stream once the operation is over.
      const live = liveStream(ctx, ctx.events.subscribe('operation.updated'), (e) => e.operationId === id, sameSight);
      return operationStream(live, id, () => getOperation(ctx, id));
    },
  })
  async operationUpdated(
    @Root() payload: OperationUpdate | StreamEnd,
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
  ): Promise<ToolOperationType> {
    const update = unlessEnded(payload);
    if (update.current) return toType(update.current);
    // Events carry ids only; the row is read afresh for each.
    startEvent(ctx);
    return toType(await getOperation(ctx, id));
  }
}
