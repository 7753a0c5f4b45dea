import { randomUUID } from 'node:crypto';
import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';

/** A human-written note about changes to a blueprint, published by its owner; public to read. */
@ObjectType('ChangelogEntry')
@Entity({ tableName: 'changelog_entry' })
export class ChangelogEntry {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt';

  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @ManyToOne(() => Principal, { ref: true })
  author: Ref<Principal>;

  @Field(() => String)
  @Property({ type: 'text' })
  title: string;

  @Field(() => String)
  @Property({ type: 'text' })
  body: string;

  /** Set by the database (clock_timestamp, microseconds), so entries published in one millisecond still order. */
  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();

  constructor(init: { blueprint: Ref<Blueprint>; author: Ref<Principal>; title: string; body: string }) {
    this.blueprint = init.blueprint;
    this.author = init.author;
    this.title = init.title;
    this.body = init.body;
  }
}
