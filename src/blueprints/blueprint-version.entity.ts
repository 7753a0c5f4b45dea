import { randomUUID } from 'node:crypto';
import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from './blueprint.entity';
import type { Plan } from '../plans/plan';

/** One modification of a blueprint's plan: who, why, what changed, and the full snapshot after it. */
@Entity({ tableName: 'blueprint_version' })
@Unique({ properties: ['blueprint', 'number'] })
export class BlueprintVersion {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @Property({ type: 'integer' })
  number: number;

  @ManyToOne(() => Principal, { ref: true })
  author: Ref<Principal>;

  /** `create`, `fork`, a tool type, `edit`, `rollback`... */
  @Property({ type: 'text' })
  cause: string;

  @Property({ type: 'jsonb' })
  changes: Record<string, unknown>;

  @Property({ type: 'jsonb' })
  plan: Plan;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(init: { blueprint: Ref<Blueprint>; number: number; author: Ref<Principal>; cause: string; changes: Record<string, unknown>; plan: Plan }) {
    this.blueprint = init.blueprint;
    this.number = init.number;
    this.author = init.author;
    this.cause = init.cause;
    this.changes = init.changes;
    this.plan = init.plan;
  }
}
