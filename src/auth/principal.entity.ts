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
  [OptionalProps]?: 'id' | 'createdAt' | 'username' | 'passwordHash';

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

  /** Set for people who signed up; operator-created users and agents have none. */
  @Property({ type: 'text', nullable: true })
  username: string | null = null;

  /** argon2id (PHC string); never leaves the auth area. */
  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  passwordHash: string | null = null;

  constructor(kind: PrincipalKind, name: string) {
    this.kind = kind;
    this.name = name;
  }
}
