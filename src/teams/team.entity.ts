import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';

export enum TeamRole {
  OWNER = 'owner',
  ADMIN = 'admin',
  MEMBER = 'member',
  VIEWER = 'viewer',
}
registerEnumType(TeamRole, { name: 'TeamRole' });

/** Roles that may edit team blueprints and architectures (docs/api.md). */
export const editorRoles: readonly TeamRole[] = [TeamRole.OWNER, TeamRole.ADMIN, TeamRole.MEMBER];

/** Roles that manage a team: its members, conventions, and deleting its things. */
export const managerRoles: readonly TeamRole[] = [TeamRole.OWNER, TeamRole.ADMIN];

/** Shared access to blueprints and architectures, with coding conventions injected into execution. */
@ObjectType('Team')
@Entity({ tableName: 'team' })
export class Team {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'conventions';

  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Field(() => String)
  @Property({ type: 'text' })
  name: string;

  @Field(() => String, { description: 'Coding conventions injected into the execution context of team blueprints.' })
  @Property({ type: 'text' })
  conventions: string = '';

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Field(() => Date)
  @Property({ type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  constructor(name: string) {
    this.name = name;
  }
}

@Entity({ tableName: 'team_member' })
export class TeamMember {
  [OptionalProps]?: 'createdAt';

  @ManyToOne(() => Team, { ref: true, primary: true, deleteRule: 'cascade' })
  team: Ref<Team>;

  @ManyToOne(() => Principal, { ref: true, primary: true, deleteRule: 'cascade' })
  principal: Ref<Principal>;

  @Enum({ items: () => TeamRole, columnType: 'text' })
  role: TeamRole;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(team: Ref<Team>, principal: Ref<Principal>, role: TeamRole) {
    this.team = team;
    this.principal = principal;
    this.role = role;
  }
}
