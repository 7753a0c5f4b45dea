import { randomUUID } from 'node:crypto';
import { BigIntType, Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';

/** What a broadcast is about (docs/api.md). */
export enum BroadcastType {
  CHANGELOG = 'changelog',
  NOTICE = 'notice',
  SECURITY = 'security',
  DEPRECATION = 'deprecation',
}
registerEnumType(BroadcastType, { name: 'BroadcastType' });

/** How much a broadcast matters to forkers; `breaking` flags an incompatible change. */
export enum BroadcastSeverity {
  INFO = 'info',
  MINOR = 'minor',
  BREAKING = 'breaking',
  CRITICAL = 'critical',
}
registerEnumType(BroadcastSeverity, { name: 'BroadcastSeverity' });

/** A message an owner sends about a blueprint to its forkers and subscribers. */
@Entity({ tableName: 'broadcast' })
export class Broadcast {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** Null once the blueprint is deleted: delivered broadcasts stay in inboxes (docs/reviews.md). */
  @ManyToOne(() => Blueprint, { ref: true, nullable: true, deleteRule: 'set null' })
  sourceBlueprint: Ref<Blueprint> | null;

  @ManyToOne(() => Principal, { ref: true })
  sender: Ref<Principal>;

  @Property({ type: 'text' })
  message: string;

  @Enum({ items: () => BroadcastType, columnType: 'text' })
  type: BroadcastType;

  @Enum({ items: () => BroadcastSeverity, columnType: 'text' })
  severity: BroadcastSeverity;

  /** Inbox rows written when it was sent. */
  @Property({ type: 'integer' })
  recipientCount: number;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(init: {
    sourceBlueprint: Ref<Blueprint>;
    sender: Ref<Principal>;
    message: string;
    type: BroadcastType;
    severity: BroadcastSeverity;
    recipientCount: number;
  }) {
    this.sourceBlueprint = init.sourceBlueprint;
    this.sender = init.sender;
    this.message = init.message;
    this.type = init.type;
    this.severity = init.severity;
    this.recipientCount = init.recipientCount;
  }
}

/**
 * One recipient's copy of a broadcast: the durable inbox row. `seq` is its id and the live cursor;
 * rows are written by one set-based INSERT ... SELECT per broadcast (see `sendBroadcast`).
 */
@Entity({ tableName: 'inbox_delivery' })
@Unique({ properties: ['broadcast', 'recipient'] })
export class InboxDelivery {
  [OptionalProps]?: 'seq' | 'readAt';

  @PrimaryKey({ type: new BigIntType('string'), autoincrement: true })
  seq!: string;

  @ManyToOne(() => Broadcast, { ref: true, deleteRule: 'cascade' })
  broadcast: Ref<Broadcast>;

  @ManyToOne(() => Principal, { ref: true, deleteRule: 'cascade' })
  recipient: Ref<Principal>;

  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  readAt: Date | null = null;

  constructor(broadcast: Ref<Broadcast>, recipient: Ref<Principal>) {
    this.broadcast = broadcast;
    this.recipient = recipient;
  }
}

/** An explicit subscription to a blueprint's broadcasts (forkers get them without one). */
@Entity({ tableName: 'blueprint_subscription' })
export class BlueprintSubscription {
  [OptionalProps]?: 'createdAt';

  @ManyToOne(() => Blueprint, { ref: true, primary: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @ManyToOne(() => Principal, { ref: true, primary: true, deleteRule: 'cascade' })
  principal: Ref<Principal>;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(blueprint: Ref<Blueprint>, principal: Ref<Principal>) {
    this.blueprint = blueprint;
    this.principal = principal;
  }
}
