import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Visibility } from '../blueprints/blueprint.entity';
import { connectionType } from '../platform/graphql/graphql-connection';
import { EdgeType } from './architecture.entity';

/** GraphQL shapes of architectures. Roots are the plain records of architecture.read.ts. */

@ObjectType('Position', { simpleResolvers: true, description: "Top-left corner of a node's box on the canvas." })
export class PositionType {
  @Field(() => Float) x!: number;
  @Field(() => Float) y!: number;
}

@ObjectType('Architecture', { description: 'A diagram of blueprints (nodes) joined by typed edges.' })
export class ArchitectureType {
  @Field(() => ID) id!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => Visibility) visibility!: Visibility;
  @Field(() => ID, { nullable: true, description: 'The team it belongs to, if any.' }) teamId!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

export const ArchitectureConnection = connectionType(ArchitectureType, 'PublicArchitecture');
export const TeamArchitectureConnection = connectionType(ArchitectureType, 'TeamArchitecture');
export const UserArchitectureConnection = connectionType(ArchitectureType, 'UserArchitecture');

@ObjectType('BlueprintCard', { simpleResolvers: true, description: 'What the ecosystem view shows of a blueprint.' })
export class BlueprintCardType {
  @Field(() => ID) id!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) name!: string;
  // The card's `stars` is the blueprint's starsCount (one card source, `toCard`); a resolver reads it by that name.
  @Field(() => Int, { name: 'stars', simple: false }) starsCount!: number;
  @Field(() => Int) moduleCount!: number;
  @Field(() => Int) stepCount!: number;
  @Field(() => Float, { nullable: true, description: 'Completed runs over ended runs; null before any run has ended.' }) successRate!: number | null;
  @Field(() => Int) reviewCount!: number;
  @Field(() => Float, { nullable: true, description: 'Mean review rating (1-5); null without reviews.' }) ratingAverage!: number | null;
}

// Plain fields read straight from the node (simpleResolvers): the ecosystem view has 200 nodes and more.
@ObjectType('ArchitectureNode', {
  simpleResolvers: true,
  description: 'A blueprint on the canvas. A node whose blueprint the caller may not read is redacted: no blueprint, no content.',
})
export class ArchitectureNodeType {
  @Field(() => ID) id!: string;
  @Field(() => Boolean) redacted!: boolean;
  @Field(() => PositionType) position!: PositionType;
  @Field(() => BlueprintCardType, {
    nullable: true,
    description: 'Ecosystem zoom: name, stars, module and step counts, success rate; null when redacted.',
  })
  card!: BlueprintCardType | null;
  @Field(() => [ModuleKindCountType], { description: 'Ecosystem zoom: modules per kind, most common first.' }) composition!: ModuleKindCountType[];
}

@ObjectType('ArchitectureEdge', { simpleResolvers: true })
export class ArchitectureEdgeType {
  @Field(() => ID, { description: 'A UUID, or `lineage:<parentNodeId>:<childNodeId>` for a computed edge.' }) id!: string;
  @Field(() => ID, { description: 'The source node id.' }) source!: string;
  @Field(() => ID, { description: 'The target node id.' }) target!: string;
  @Field(() => EdgeType) edgeType!: EdgeType;
  @Field(() => String, { nullable: true }) label!: string | null;
  @Field(() => Boolean, { description: 'True for lineage edges, derived from fork and breed ancestry on every read.' }) computed!: boolean;
}

@ObjectType('ModuleKindCount', { simpleResolvers: true, description: 'One bar of the ecosystem view: how many modules of a kind.' })
export class ModuleKindCountType {
  @Field(() => String) kind!: string;
  @Field(() => Int) count!: number;
}

@ObjectType('ArchitectureModule', { simpleResolvers: true, description: 'A module at the architecture zoom level.' })
export class ArchitectureModuleType {
  @Field(() => String) key!: string;
  @Field(() => String) name!: string;
  @Field(() => String) summary!: string;
  @Field(() => String) kind!: string;
  @Field(() => [String]) dependsOn!: string[];
  @Field(() => Int) stepCount!: number;
  @Field(() => Int, { description: '0 without dependencies, else one more than the deepest dependency.' }) level!: number;
}

@ObjectType('ModuleDependency', { simpleResolvers: true })
export class ModuleDependencyType {
  @Field(() => String, { description: 'The module that depends.' }) source!: string;
  @Field(() => String, { description: 'The module it depends on.' }) target!: string;
}

export enum SwimlaneRelationEnum {
  MODULE = 'module',
  DEPENDENCY = 'dependency',
  DEPENDENT = 'dependent',
}
registerEnumType(SwimlaneRelationEnum, { name: 'SwimlaneRelation', description: 'How a lane relates to the module in detail.' });

@ObjectType('SwimlaneStep', { simpleResolvers: true })
export class SwimlaneStepType {
  @Field(() => Int, { description: "Place in the blueprint's run order (1-based): all lanes share this time axis." }) order!: number;
  @Field(() => String) key!: string;
  @Field(() => String) moduleKey!: string;
  @Field(() => String) title!: string;
  @Field(() => String) instructions!: string;
  @Field(() => [String]) acceptance!: string[];
}

@ObjectType('Swimlane', { simpleResolvers: true })
export class SwimlaneType {
  @Field(() => String) moduleKey!: string;
  @Field(() => String) name!: string;
  @Field(() => String) kind!: string;
  @Field(() => SwimlaneRelationEnum) relation!: SwimlaneRelationEnum;
  @Field(() => [SwimlaneStepType]) steps!: SwimlaneStepType[];
}

@ObjectType('ModuleDetail', {
  simpleResolvers: true,
  description: 'The module detail zoom level: its steps, in swimlanes beside its direct dependencies and dependents.',
})
export class ModuleDetailType {
  @Field(() => ArchitectureModuleType) module!: ArchitectureModuleType;
  @Field(() => [SwimlaneStepType]) steps!: SwimlaneStepType[];
  @Field(() => [SwimlaneType], { description: 'The module first, then each module it depends on, then each that depends on it.' }) swimlanes!: SwimlaneType[];
}

export enum ArchitectureChangeKindEnum {
  NODE_ADDED = 'node_added',
  NODE_REMOVED = 'node_removed',
  EDGE_ADDED = 'edge_added',
  EDGE_REMOVED = 'edge_removed',
  LAYOUT_UPDATED = 'layout_updated',
  TRANSFERRED = 'transferred',
  /** A node's blueprint changed name or visibility (its card may now be redacted). */
  NODE_UPDATED = 'node_updated',
  /** Name, description or visibility of the architecture changed. */
  UPDATED = 'updated',
  /** The architecture was deleted. */
  DELETED = 'deleted',
}
registerEnumType(ArchitectureChangeKindEnum, { name: 'ArchitectureChangeKind' });

@InputType('CreateArchitectureInput')
export class CreateArchitectureInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => Visibility) visibility!: Visibility;
}

@InputType('PositionInput')
export class PositionInput {
  @Field(() => Float) x!: number;
  @Field(() => Float) y!: number;
}

@InputType('AddArchitectureNodeInput')
export class AddArchitectureNodeInput {
  @Field(() => ID) blueprintId!: string;
  @Field(() => PositionInput, { nullable: true, description: 'Leave out for automatic placement on a free grid cell.' }) position?: PositionInput;
}

@InputType('AddArchitectureEdgeInput')
export class AddArchitectureEdgeInput {
  @Field(() => ID) sourceNodeId!: string;
  @Field(() => ID) targetNodeId!: string;
  @Field(() => EdgeType, { description: 'One of the manual types; the lineage types are refused (FORBIDDEN).' }) edgeType!: EdgeType;
  @Field(() => String, { nullable: true, description: 'Required for CUSTOM.' }) label?: string;
}

@InputType('LayoutEntryInput')
export class LayoutEntryInput {
  @Field(() => ID) nodeId!: string;
  @Field(() => PositionInput) position!: PositionInput;
}
