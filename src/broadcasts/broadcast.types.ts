import type { BlueprintView } from '../blueprints/blueprint.view';
import { Field, ID, ObjectType } from 'type-graphql';
import { connectionType } from '../platform/graphql/graphql-connection';
import { BroadcastSeverity, BroadcastType } from './broadcast.entity';
import type { BroadcastRecord, InboxItem } from './inbox.service';

@ObjectType('Broadcast', { simpleResolvers: true, description: "A message a blueprint's owner sent to its forkers and subscribers." })
export class BroadcastNode {
  @Field(() => ID) id!: string;
  @Field(() => String) message!: string;
  @Field(() => BroadcastType) type!: BroadcastType;
  @Field(() => BroadcastSeverity) severity!: BroadcastSeverity;
  @Field(() => Date) createdAt!: Date;
  @Field(() => ID, { nullable: true, description: 'Null once the blueprint was deleted.' }) sourceBlueprintId!: string | null;
  senderId!: string;
  sentTo!: number;
  /** The source blueprint when it was read along with the event (undefined: load it; null: gone). */
  source?: BlueprintView | null;
}

@ObjectType('InboxItem', { simpleResolvers: true, description: "One broadcast in one recipient's inbox." })
export class InboxItemNode {
  @Field(() => ID, { description: 'The delivery id. Ordered per recipient: it is the cursor of `broadcastReceived(after:)` and `inbox(after:)`.' })
  id!: string;
  @Field(() => Date, { nullable: true, description: 'When the recipient marked it read; null while unread.' })
  readAt!: Date | null;
  @Field(() => BroadcastNode) broadcast!: BroadcastNode;
}

export const InboxItemConnection = connectionType(InboxItemNode, 'InboxItem');

@ObjectType('BlueprintSubscriptionState', { simpleResolvers: true })
export class BlueprintSubscriptionState {
  @Field(() => ID) blueprintId!: string;
  @Field(() => Boolean, { description: "Whether the caller now receives the blueprint's broadcasts as a subscriber." }) subscribed!: boolean;
}

export function toBroadcastNode(b: BroadcastRecord, source?: BlueprintView | null): BroadcastNode {
  return {
    id: b.id,
    message: b.message,
    type: b.type,
    severity: b.severity,
    createdAt: b.createdAt,
    sourceBlueprintId: b.sourceBlueprintId,
    senderId: b.senderId,
    sentTo: b.recipientCount,
    ...(source !== undefined ? { source } : {}),
  };
}

export function toInboxNode(item: InboxItem, source?: BlueprintView | null): InboxItemNode {
  return { id: item.id, readAt: item.readAt, broadcast: toBroadcastNode(item.broadcast, source) };
}
