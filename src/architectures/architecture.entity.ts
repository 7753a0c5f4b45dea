import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint, Visibility } from '../blueprints/blueprint.entity';
import { Team } from '../teams/team.entity';

/** Every edge type. The lineage ones are computed from fork/breed ancestry, never stored. */
export enum EdgeType {
  API_CALL = 'api_call',
  EVENT = 'event',
  SHARED_DB = 'shared_db',
  AUTH = 'auth',
  CUSTOM = 'custom',
  LINEAGE_FORK = 'lineage_fork',
  LINEAGE_BREED = 'lineage_breed',
}
registerEnumType(EdgeType, {
  name: 'ArchitectureEdgeType',
  description: 'api_call, event, shared_db, auth and custom are drawn by editors (custom needs a label); lineage_fork and lineage_breed are computed.',
});

/** The edge types an editor may create and delete. */
export const manualEdgeTypes: readonly EdgeType[] = [EdgeType.API_CALL, EdgeType.EVENT, EdgeType.SHARED_DB, EdgeType.AUTH, EdgeType.CUSTOM];
export const lineageEdgeTypes: readonly EdgeType[] = [EdgeType.LINEAGE_FORK, EdgeType.LINEAGE_BREED];

/**
 * A diagram composing blueprints. Nodes and edges are separate rows; reads assemble them per viewer with
 * batched SQL (architecture.read.ts) and writes use SQL inside locked transactions, so these classes map
 * the tables for the ORM rather than carry behaviour.
 */
@Entity({ tableName: 'architecture' })
export class Architecture {
  [OptionalProps]?: 'id' | 'description' | 'team' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true })
  slug: string;

  @Property({ type: 'text' })
  name: string;

  @Property({ type: 'text' })
  description: string = '';

  @Enum({ items: () => Visibility, columnType: 'text' })
  visibility: Visibility;

  @ManyToOne(() => Principal, { ref: true })
  owner: Ref<Principal>;

  @ManyToOne(() => Team, { ref: true, nullable: true, deleteRule: 'set null' })
  team: Ref<Team> | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  constructor(init: { slug: string; name: string; description: string; visibility: Visibility; owner: Ref<Principal> }) {
    this.slug = init.slug;
    this.name = init.name;
    this.description = init.description;
    this.visibility = init.visibility;
    this.owner = init.owner;
  }
}

/** A blueprint placed on an architecture's canvas. */
@Entity({ tableName: 'architecture_node' })
export class ArchitectureNode {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Architecture, { ref: true, deleteRule: 'cascade' })
  architecture: Ref<Architecture>;

  @ManyToOne(() => Blueprint, { ref: true, deleteRule: 'cascade' })
  blueprint: Ref<Blueprint>;

  @Property({ type: 'double', columnType: 'double precision' })
  positionX: number;

  @Property({ type: 'double', columnType: 'double precision' })
  positionY: number;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(architecture: Ref<Architecture>, blueprint: Ref<Blueprint>, position: { x: number; y: number }) {
    this.architecture = architecture;
    this.blueprint = blueprint;
    this.positionX = position.x;
    this.positionY = position.y;
  }
}

/** A manual, directed edge between two nodes of one architecture. */
@Entity({ tableName: 'architecture_edge' })
export class ArchitectureEdge {
  [OptionalProps]?: 'id' | 'createdAt' | 'label';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Architecture, { ref: true, deleteRule: 'cascade' })
  architecture: Ref<Architecture>;

  @ManyToOne(() => ArchitectureNode, { ref: true, deleteRule: 'cascade' })
  sourceNode: Ref<ArchitectureNode>;

  @ManyToOne(() => ArchitectureNode, { ref: true, deleteRule: 'cascade' })
  targetNode: Ref<ArchitectureNode>;

  @Enum({ items: () => EdgeType, columnType: 'text' })
  edgeType: EdgeType;

  @Property({ type: 'text', nullable: true })
  label: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  constructor(init: {
    architecture: Ref<Architecture>;
    sourceNode: Ref<ArchitectureNode>;
    targetNode: Ref<ArchitectureNode>;
    edgeType: EdgeType;
    label: string | null;
  }) {
    this.architecture = init.architecture;
    this.sourceNode = init.sourceNode;
    this.targetNode = init.targetNode;
    this.edgeType = init.edgeType;
    this.label = init.label;
  }
}
