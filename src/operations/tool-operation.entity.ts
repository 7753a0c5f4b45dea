import { randomUUID } from 'node:crypto';
import { ArrayType, Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';

/** `active -> completed | cancelled | failed | expired` (docs/api.md). */
export enum OperationStatus {
  ACTIVE = 'active',
  COMPLETED = 'completed',
  CANCELLED = 'cancelled',
  FAILED = 'failed',
  EXPIRED = 'expired',
}
registerEnumType(OperationStatus, { name: 'OperationStatus' });

/** One multi-turn tool run. Its step token is stored only as a hash and rotates on every submission. */
@Entity({ tableName: 'tool_operation' })
@Index({ properties: ['principal', 'createdAt'] })
export class ToolOperation {
  [OptionalProps]?: 'id' | 'status' | 'step' | 'state' | 'result' | 'tokenHash' | 'createdAt' | 'updatedAt' | 'lastActivityAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  toolType: string;

  @ManyToOne(() => Principal, { ref: true })
  principal: Ref<Principal>;

  @Enum({ items: () => OperationStatus, columnType: 'text' })
  status: OperationStatus = OperationStatus.ACTIVE;

  /** 1-based number of the step awaiting a submission; `totalSteps + 1` once finished. */
  @Property({ type: 'integer' })
  step: number = 1;

  @Property({ type: 'integer' })
  totalSteps: number;

  @Property({ type: ArrayType, columnType: 'uuid[]' })
  sourceIds: string[];

  @Property({ type: 'jsonb' })
  params: Record<string, unknown>;

  /** What the accepted submissions built up so far (tool-specific). */
  @Property({ type: 'jsonb' })
  state: Record<string, unknown> = {};

  @Property({ type: 'jsonb', nullable: true })
  result: Record<string, unknown> | null = null;

  @Property({ type: 'text', nullable: true })
  tokenHash: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  lastActivityAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  constructor(init: { toolType: string; principal: Ref<Principal>; totalSteps: number; sourceIds: string[]; params: Record<string, unknown> }) {
    this.toolType = init.toolType;
    this.principal = init.principal;
    this.totalSteps = init.totalSteps;
    this.sourceIds = init.sourceIds;
    this.params = init.params;
  }
}
