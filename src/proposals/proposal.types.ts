import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Blueprint } from '../blueprints/blueprint.entity';
import { connectionType } from '../platform/graphql/graphql-connection';
import { JSONScalar } from '../platform/graphql/scalars';
import type { ProposalState } from './proposal.service';

export enum ProposalStateFilter {
  OPEN = 'open',
  MERGED = 'merged',
  CLOSED = 'closed',
  ALL = 'all',
}
registerEnumType(ProposalStateFilter, { name: 'ProposalStateFilter' });

export enum ProposalStateEnum {
  OPEN = 'open',
  MERGED = 'merged',
  CLOSED = 'closed',
}
registerEnumType(ProposalStateEnum, { name: 'ProposalState' });

export enum ProposalConflictKind {
  MODULE = 'module',
  STEP = 'step',
  CONFIGURATION = 'configuration',
  DESIGN_SYSTEM = 'designSystem',
}
registerEnumType(ProposalConflictKind, { name: 'ProposalConflictKind', description: 'CONFIGURATION and DESIGN_SYSTEM conflicts are keyed by JSON path.' });

export enum ProposalResolutionTake {
  OURS = 'ours',
  THEIRS = 'theirs',
  CUSTOM = 'custom',
}
registerEnumType(ProposalResolutionTake, { name: 'ProposalResolutionTake', description: "OURS: the target's version; THEIRS: the source's; CUSTOM: value." });

@ObjectType('ProposalKeyChange', { simpleResolvers: true, description: 'What the source did to one module or step since the base.' })
export class ProposalKeyChangeType {
  @Field(() => String) key!: string;
  @Field(() => String, { description: 'added, removed or changed' }) change!: string;
  @Field(() => [String], { description: 'The fields that differ from the base (changed only).' }) fields!: string[];
}

@ObjectType('ProposalJsonDiff', { simpleResolvers: true, description: 'JSON paths added, removed and changed.' })
export class ProposalJsonDiffType {
  @Field(() => [String]) added!: string[];
  @Field(() => [String]) removed!: string[];
  @Field(() => [String]) changed!: string[];
}

@ObjectType('ProposalChanges', { simpleResolvers: true, description: 'What the source changed since the base, by key.' })
export class ProposalChangesType {
  @Field(() => [ProposalKeyChangeType]) modules!: ProposalKeyChangeType[];
  @Field(() => [ProposalKeyChangeType]) steps!: ProposalKeyChangeType[];
  @Field(() => Boolean) stepsReordered!: boolean;
  @Field(() => ProposalJsonDiffType) configuration!: ProposalJsonDiffType;
  @Field(() => ProposalJsonDiffType) designSystem!: ProposalJsonDiffType;
  @Field(() => Boolean) isEmpty!: boolean;
}

@ObjectType('ProposalConflict', {
  simpleResolvers: true,
  description: 'A key both sides changed differently since the base: its three versions (null: absent there).',
})
export class ProposalConflictType {
  @Field(() => ProposalConflictKind) kind!: ProposalConflictKind;
  @Field(() => String) key!: string;
  @Field(() => String) reason!: string;
  @Field(() => JSONScalar, { nullable: true }) base?: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "The target's version." }) ours?: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "The source's version." }) theirs?: unknown;
}

@ObjectType('Proposal', { description: "A descendant's changes offered to an ancestor (docs/proposals.md)." })
export class ProposalType {
  @Field(() => ID) id!: string;
  @Field(() => Int, { description: 'Numbered 1, 2, ... per target.' }) number!: number;
  @Field(() => Blueprint) target!: Blueprint;
  @Field(() => Blueprint) source!: Blueprint;
  @Field(() => String) title!: string;
  @Field(() => String) body!: string;
  @Field(() => ProposalStateEnum) state!: ProposalState;
  @Field(() => Int, { nullable: true, description: "The target's version at the fork point." }) baseVersion!: number | null;
  @Field(() => ProposalChangesType) changes!: ProposalChangesType;
  @Field(() => [ProposalConflictType]) conflicts!: ProposalConflictType[];
  @Field(() => Boolean) mergeable!: boolean;
  @Field(() => Int) commentCount!: number;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => Date, { nullable: true }) mergedAt!: Date | null;
  @Field(() => Int, { nullable: true, description: "The target's version the merge wrote (null: it changed nothing)." }) mergeVersion!: number | null;
  author!: { id: string; name: string };
  mergedBy!: { id: string; name: string } | null;
}

@ObjectType('ProposalComment', { simpleResolvers: true })
export class ProposalCommentType {
  @Field(() => ID) id!: string;
  @Field(() => String) body!: string;
  @Field(() => String, { nullable: true }) moduleKey!: string | null;
  @Field(() => String, { nullable: true }) stepKey!: string | null;
  @Field(() => Date) createdAt!: Date;
  author!: { id: string; name: string };
}

export const ProposalConnection = connectionType(ProposalType, 'Proposal');
export const ProposalCommentConnection = connectionType(ProposalCommentType, 'ProposalComment');

@InputType('OpenProposalInput')
export class OpenProposalInput {
  @Field(() => ID, { description: 'The descendant whose changes are proposed.' }) sourceBlueprintId!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) body?: string | null;
}

@InputType('ProposalCommentInput')
export class ProposalCommentInput {
  @Field(() => String) body!: string;
  @Field(() => String, { nullable: true }) moduleKey?: string | null;
  @Field(() => String, { nullable: true }) stepKey?: string | null;
}

@InputType('ProposalResolutionInput')
export class ProposalResolutionInput {
  @Field(() => ProposalConflictKind) kind!: ProposalConflictKind;
  @Field(() => String) key!: string;
  @Field(() => ProposalResolutionTake) take!: ProposalResolutionTake;
  @Field(() => JSONScalar, { nullable: true, description: 'CUSTOM: the module or step (GraphQL field names, same key) or the JSON value.' })
  value?: unknown;
}
