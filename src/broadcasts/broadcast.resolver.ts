import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { requireViewer } from '../auth/auth.service';
import { canRead, guardOf } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import { PageInfo } from '../platform/graphql/graphql-connection';
import { assertConnectionAuthorized, unlessEnded, type StreamEnd } from '../platform/live/live';
import { BroadcastSeverity, BroadcastType } from './broadcast.entity';
import { sendBroadcast, setSubscription, viewerIsSubscribed } from './broadcast.service';
import { BlueprintSubscriptionState, BroadcastNode, InboxItemConnection, InboxItemNode, toBroadcastNode, toInboxNode } from './broadcast.types';
import { inboxStream } from './inbox-live';
import { inboxSlice, markInboxRead, parseDeliveryId, type InboxItem } from './inbox.service';
import { startEvent } from '../platform/http/request-context';
import type { GraphQLSchema } from 'graphql';
import { directResolver } from '../platform/graphql/direct-resolver';

function cursorArg(raw: string | null | undefined, path: string): string | null {
  if (raw === null || raw === undefined) return null;
  const seq = parseDeliveryId(raw);
  if (seq === null) throw invalid(path, 'must be a delivery id');
  return seq;
}

@Resolver(() => BroadcastNode)
export class BroadcastResolver {
  @FieldResolver(() => Blueprint, { nullable: true, description: 'The blueprint it is about; null when the caller may no longer see it.' })
  async sourceBlueprint(@Root() b: BroadcastNode, @Ctx() ctx: RequestContext): Promise<BlueprintView | null> {
    const bp = b.source !== undefined ? b.source : b.sourceBlueprintId === null ? null : await blueprintLoaders(ctx).byId.load(b.sourceBlueprintId);
    return bp && (await canRead(ctx, guardOf(bp))) ? bp : null;
  }

  @FieldResolver(() => Int, { nullable: true, description: 'How many inboxes it was delivered to; only the sender sees it.' })
  recipientCount(@Root() b: BroadcastNode, @Ctx() ctx: RequestContext): number | null {
    return ctx.viewer?.principalId === b.senderId ? b.sentTo : null;
  }

  @Mutation(() => BroadcastNode, {
    description: 'Sends a broadcast about a blueprint (owner only) to the owners of its direct forks and its subscribers, each once, never the sender.',
  })
  async sendBroadcast(
    @Ctx() ctx: RequestContext,
    @Arg('blueprintId', () => ID) blueprintId: string,
    @Arg('message', () => String) message: string,
    @Arg('type', () => BroadcastType) type: BroadcastType,
    @Arg('severity', () => BroadcastSeverity) severity: BroadcastSeverity,
  ): Promise<BroadcastNode> {
    return toBroadcastNode(await sendBroadcast(ctx, blueprintId, { message, type, severity }));
  }

  @Mutation(() => BlueprintSubscriptionState, { description: "Subscribes the caller to a blueprint's broadcasts (forkers receive them without subscribing)." })
  async subscribeToBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<BlueprintSubscriptionState> {
    return setSubscription(ctx, id, true);
  }

  @Mutation(() => BlueprintSubscriptionState)
  async unsubscribeFromBlueprint(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<BlueprintSubscriptionState> {
    return setSubscription(ctx, id, false);
  }

  @Query(() => InboxItemConnection, { description: "The caller's broadcasts, newest first; `after` is the id of the last item of the previous page." })
  async inbox(
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => ID, { nullable: true }) after?: string,
    @Arg('unread', () => Boolean, { nullable: true, description: 'Only unread ones.' }) unread?: boolean,
  ) {
    const size = first ?? ctx.config.limits.pageDefault;
    if (size < 1 || size > ctx.config.limits.pageMax) throw invalid('first', `must be between 1 and ${ctx.config.limits.pageMax}`);
    const slice = await inboxSlice(ctx, { first: size, after: cursorArg(after, 'after'), unread: unread ?? false });
    const edges = slice.items.map((item) => ({ cursor: item.id, node: toInboxNode(item) }));
    const pageInfo: PageInfo = {
      hasNextPage: slice.hasNextPage,
      hasPreviousPage: after !== null && after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    };
    return { edges, pageInfo, totalCount: slice.total };
  }

  @Mutation(() => InboxItemNode, { description: "Marks one of the caller's inbox items read (idempotent: the first read time is kept)." })
  async markInboxRead(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<InboxItemNode> {
    return toInboxNode(await markInboxRead(ctx, id));
  }

  @Subscription(() => InboxItemNode, {
    description:
      "The caller's inbox deliveries as they arrive. With `after` (the last delivery id the client saw) the missed ones are replayed first, in order, then it continues live without gaps or duplicates.",
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      const viewer = requireViewer(ctx);
      await assertConnectionAuthorized(ctx);
      return await inboxStream(ctx, viewer, cursorArg(args.after as string | null | undefined, 'after'), info);
    },
  })
  broadcastReceived(
    @Root() payload: InboxItem | StreamEnd,
    @Ctx() ctx: RequestContext,
    @Arg('after', () => ID, { nullable: true }) _after?: string,
  ): InboxItemNode {
    return inboxEventNode(payload, ctx);
  }
}

/** One live delivery as the subscriber sees it (runs once per event per subscriber: see `directResolver`). */
function inboxEventNode(payload: InboxItem | StreamEnd, ctx: RequestContext): InboxItemNode {
  const item = unlessEnded(payload);
  startEvent(ctx);
  return toInboxNode(item, item.source);
}

/** `Subscription.broadcastReceived` without type-graphql's asynchronous argument step. */
export function resolveInboxEventsDirectly(schema: GraphQLSchema): void {
  directResolver<InboxItem | StreamEnd>(schema, 'Subscription', 'broadcastReceived', (payload, _args, ctx) => inboxEventNode(payload, ctx));
}

@Resolver(() => Blueprint)
export class BlueprintBroadcastResolver {
  @FieldResolver(() => Boolean, { description: "Whether the caller subscribed to this blueprint's broadcasts." })
  viewerIsSubscribed(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext): Promise<boolean> {
    return viewerIsSubscribed(ctx, bp.id);
  }
}
