import { Entity, ManyToOne, OptionalProps, Property, type Ref } from '@mikro-orm/core';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from './blueprint.entity';

/** One principal's star on one blueprint; its time feeds the trending window. */
@Entity({ tableName: 'star' })
export class Star {
  [OptionalProps]?: 'createdAt';

  @ManyToOne(() => Principal, { ref: true, primary: true, deleteRule: 'cascade' })
  principal: Ref<Principal>;

  @ManyToOne(() => Blueprint, { ref: true, primary: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(principal: Ref<Principal>, blueprint: Ref<Blueprint>) {
    this.principal = principal;
    this.blueprint = blueprint;
  }
}
