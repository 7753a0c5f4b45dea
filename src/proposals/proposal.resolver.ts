import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { principalById } from '../auth/principal.loaders';
import { Blueprint } from '../blueprints/blueprint.entity';
import { getBlueprint } from '../blueprints/blueprint.service';
import { BlueprintActivity } from '../broadcasts/activity.resolver';
import type { RequestContext } from '../platform/context';
import { LazyConnection } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { orNull } from '../platform/graphql/or-null';
import { commentOnProposal, listProposalComments, mergeProposal, setProposalOpen, type ProposalComment } from './proposal-actions.service';
import { wireConflictKind, type ConflictKind } from './proposal.merge';
import { getProposal, listProposals, openProposal, type ProposalView } from './proposal.service';
import {
  OpenProposalInput,
  ProposalCommentConnection,
  ProposalCommentInput,
  ProposalCommentType,
  ProposalConnection,
  ProposalResolutionInput,
  ProposalStateFilter,
  ProposalType,
} from './proposal.types';

/** A custom module or step given with GraphQL field names, in the wire form the service checks. */
function customToWire(kind: string, value: unknown): unknown {
  if ((kind !== 'module' && kind !== 'step') || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const renamed: Record<string, string> = { dependsOn: 'depends_on', moduleKey: 'module_key' };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [renamed[k] ?? k, v]));
}

@Resolver(() => Blueprint)
export class BlueprintProposalsResolver {
  @FieldResolver(() => ProposalConnection, { description: 'Proposals to this blueprint, newest first (default: open ones).' })
  proposals(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('state', () => ProposalStateFilter, { nullable: true }) state?: ProposalStateFilter | null,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ProposalView> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => listProposals(ctx, bp.id, state ?? 'open', page));
  }

  @FieldResolver(() => ProposalType, { nullable: true, description: 'Proposal `number`; null when missing or its source is out of sight.' })
  proposal(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext, @Arg('number', () => Int) number: number): Promise<ProposalView | null> {
    return orNull(getProposal(ctx, bp.id, number));
  }
}

@Resolver(() => ProposalType)
export class ProposalResolver {
  @FieldResolver(() => Principal)
  async author(@Root() p: ProposalView, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, p.author.id))!;
  }

  @FieldResolver(() => Principal, { nullable: true })
  mergedBy(@Root() p: ProposalView, @Ctx() ctx: RequestContext): Promise<Principal | null> {
    return p.mergedBy ? principalById(ctx, p.mergedBy.id) : Promise.resolve(null);
  }

  @FieldResolver(() => ProposalCommentConnection, { description: 'Comments, oldest first.' })
  comments(
    @Root() p: ProposalView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ProposalComment> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => listProposalComments(ctx, p.targetId, p.number, page));
  }

  @Mutation(() => ProposalType, { description: "Proposes a descendant's changes to the target (the source's owner or team editor)." })
  openProposal(
    @Ctx() ctx: RequestContext,
    @Arg('targetId', () => ID) targetId: string,
    @Arg('input', () => OpenProposalInput) input: OpenProposalInput,
  ): Promise<ProposalView> {
    return openProposal(ctx, targetId, {
      source_blueprint_id: input.sourceBlueprintId,
      title: input.title,
      ...(input.body != null ? { body: input.body } : {}),
    });
  }

  @Mutation(() => ProposalCommentType, { description: 'Comments on a proposal, optionally on a module or a step.' })
  commentOnProposal(
    @Ctx() ctx: RequestContext,
    @Arg('targetId', () => ID) targetId: string,
    @Arg('number', () => Int) number: number,
    @Arg('input', () => ProposalCommentInput) input: ProposalCommentInput,
  ): Promise<ProposalComment> {
    return commentOnProposal(ctx, targetId, number, {
      body: input.body,
      ...(input.moduleKey != null ? { module_key: input.moduleKey } : {}),
      ...(input.stepKey != null ? { step_key: input.stepKey } : {}),
    });
  }

  @Mutation(() => ProposalType, { description: 'Merges a proposal (target owner or team editor); CONFLICT lists unresolved conflicts.' })
  mergeProposal(
    @Ctx() ctx: RequestContext,
    @Arg('targetId', () => ID) targetId: string,
    @Arg('number', () => Int) number: number,
    @Arg('resolutions', () => [ProposalResolutionInput], { nullable: true }) resolutions?: ProposalResolutionInput[] | null,
  ): Promise<ProposalView> {
    const body = {
      resolutions: (resolutions ?? []).map((r) => ({
        kind: wireConflictKind(r.kind as ConflictKind),
        key: r.key,
        take: r.take,
        ...(r.value !== undefined && r.value !== null ? { value: customToWire(r.kind, r.value) } : {}),
      })),
    };
    return mergeProposal(ctx, targetId, number, body);
  }

  @Mutation(() => ProposalType, { description: 'Closes a proposal (its author, or the target owner or a team editor).' })
  closeProposal(@Ctx() ctx: RequestContext, @Arg('targetId', () => ID) targetId: string, @Arg('number', () => Int) number: number): Promise<ProposalView> {
    return setProposalOpen(ctx, targetId, number, false);
  }

  @Mutation(() => ProposalType, { description: 'Reopens a closed proposal (not a merged one).' })
  reopenProposal(@Ctx() ctx: RequestContext, @Arg('targetId', () => ID) targetId: string, @Arg('number', () => Int) number: number): Promise<ProposalView> {
    return setProposalOpen(ctx, targetId, number, true);
  }
}

@Resolver(() => ProposalCommentType)
export class ProposalCommentResolver {
  @FieldResolver(() => Principal)
  async author(@Root() c: ProposalComment, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, c.author.id))!;
  }
}

@Resolver(() => BlueprintActivity)
export class ProposalActivityResolver {
  @FieldResolver(() => ProposalType, { nullable: true, description: 'PROPOSAL_*: the proposal, when the caller may see it.' })
  async proposal(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<ProposalView | null> {
    if (!a.kind.startsWith('proposal_') || !a.subjectId) return null;
    const rows: Array<{ number: number }> = await ctx.em.execute('select number from proposal where id = ?', [a.subjectId]);
    if (!rows[0]) return null;
    const target = await orNull(getBlueprint(ctx, a.blueprintId));
    return target ? orNull(getProposal(ctx, target.id, rows[0].number)) : null;
  }
}
