import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';

export enum LineageKind {
  FORK = 'fork',
  BREED = 'breed',
}
registerEnumType(LineageKind, { name: 'LineageKind', description: 'fork: one parent; breed: offspring of two or more.' });

/** A parent -> child edge of the ancestry graph, written by fork and by NEW-output tools. */
@Entity({ tableName: 'lineage_link' })
@Unique({ properties: ['parent', 'child'] })
export class LineageLink {
  [OptionalProps]?: 'id' | 'createdAt' | 'operationId';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  parent: Ref<Blueprint>;

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  child: Ref<Blueprint>;

  @Enum({ items: () => LineageKind, columnType: 'text' })
  kind: LineageKind;

  /** The tool operation that made the child, when one did. */
  @Property({ type: 'uuid', nullable: true })
  operationId: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(parent: Ref<Blueprint>, child: Ref<Blueprint>, kind: LineageKind, operationId: string | null = null) {
    this.parent = parent;
    this.child = child;
    this.kind = kind;
    this.operationId = operationId;
  }
}
