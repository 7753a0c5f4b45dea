import { randomUUID } from 'node:crypto';
import { Entity, Enum, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum PrincipalKind {
  USER = 'user',
  AGENT = 'agent',
}
registerEnumType(PrincipalKind, { name: 'PrincipalKind', description: 'A signed-in person, or a self-provisioned agent session.' });

/** Whoever acts: a user (who mints MCP tokens) or an agent session. Owners of blueprints are principals. */
@ObjectType('Principal')
@Entity({ tableName: 'principal' })
export class Principal {
  [OptionalProps]?: 'id' | 'createdAt';

  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Field(() => PrincipalKind)
  @Enum({ items: () => PrincipalKind, columnType: 'text' })
  kind: PrincipalKind;

  @Field(() => String)
  @Property({ type: 'text' })
  name: string;

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(kind: PrincipalKind, name: string) {
    this.kind = kind;
    this.name = name;
  }
}
