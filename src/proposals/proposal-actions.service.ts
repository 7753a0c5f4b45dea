/**
 * What people do with a proposal: comment, merge (with a resolution per conflict), close and reopen.
 * Each is one transaction on the locked proposal row (and, for a merge, the locked target row).
 */
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { requireViewer } from '../auth/auth.service';
import { canEditWith, guardOf, viewerTeamRoles } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { recordVersion } from '../blueprints/blueprint-version.service';
import { getBlueprint } from '../blueprints/blueprint.service';
import { deliverNotice } from '../broadcasts/broadcast.service';
import { diffPlans } from '../plans/algebra';
import { moduleFromWire, stepFromWire, type Plan, type WireModule, type WireStep } from '../plans/plan';
import { moduleSchema, stepSchema } from '../plans/plan.schema';
import { assertValidPlan } from '../plans/plan.validation';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden, invalid, invalidAll, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { commentInput, mergeInput } from './proposal.contract';
import type { Page, PageRequest } from '../platform/pagination';
import { actorOf, recordAudit } from '../teams/audit.service';
import { planDiffToWire } from '../versions/version.wire';
import { conflictKindByWire, mergeProposalPlans, wireConflictKind, type Resolution } from './proposal.merge';
import {
  findProposal,
  parseProposalNumber,
  proposalColumns,
  proposalJoins,
  publishProposalEvent,
  toProposalRecord,
  viewOf,
  type ProposalView,
} from './proposal.service';

export interface ProposalComment {
  id: string;
  author: { id: string; name: string };
  body: string;
  moduleKey: string | null;
  stepKey: string | null;
  createdAt: Date;
}

const commentSchema = compileSchema(commentInput);

/** A proposal the caller may see (target and source readable), for the actions below. */
async function proposalFor(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown) {
  const number = parseProposalNumber(rawNumber);
  const target = await getBlueprint(ctx, targetIdOrSlug);
  return { target, ...(await findProposal(ctx, target, number)) };
}

/**
 * `POST .../proposals/:number/comments {body, module_key?, step_key?}`: anyone who may read the target and
 * the source. An anchor names a module or step of the target, the source or the base (400 otherwise).
 */
export async function commentOnProposal(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown, body: unknown): Promise<ProposalComment> {
  const viewer = requireViewer(ctx);
  const { target, record, source } = await proposalFor(ctx, targetIdOrSlug, rawNumber);
  const input = assertValid<{ body: string; module_key?: string; step_key?: string }>(commentSchema, structuredClone(body ?? null), 'body');
  if (input.module_key && input.step_key) throw invalid('step_key', 'give module_key or step_key, not both');
  const plans = [target.plan, source.plan, record.basePlan];
  if (input.module_key && !plans.some((p) => p.modules.some((m) => m.key === input.module_key))) throw invalid('module_key', 'names no module of the proposal');
  if (input.step_key && !plans.some((p) => p.steps.some((s) => s.key === input.step_key))) throw invalid('step_key', 'names no step of the proposal');
  const id = randomUUID();
  const rows: Array<{ created_at: Date }> = await ctx.em.transactional(async (tx) => {
    const inserted: Array<{ created_at: Date }> = await tx.execute(
      'insert into proposal_comment (id, proposal_id, author_id, body, module_key, step_key) values (?, ?, ?, ?, ?, ?) returning created_at',
      [id, record.id, viewer.principalId, input.body, input.module_key ?? null, input.step_key ?? null],
    );
    await tx.execute('update proposal set comment_count = comment_count + 1, updated_at = now() where id = ?', [record.id]);
    await publishProposalEvent(ctx, tx, 'proposal_commented', record, viewer.principalId);
    return inserted;
  });
  return {
    id,
    author: { id: viewer.principalId, name: viewer.name },
    body: input.body,
    moduleKey: input.module_key ?? null,
    stepKey: input.step_key ?? null,
    createdAt: new Date(rows[0]!.created_at),
  };
}

/** `GET .../proposals/:number/comments`: oldest first. */
export async function listProposalComments(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown, page: PageRequest): Promise<Page<ProposalComment>> {
  const { record } = await proposalFor(ctx, targetIdOrSlug, rawNumber);
  const rows: Array<Record<string, any>> = await ctx.em.execute(
    `select c.id, c.author_id, a.name as author_name, c.body, c.module_key, c.step_key, c.created_at
       from proposal_comment c join principal a on a.id = c.author_id
      where c.proposal_id = ? order by c.created_at, c.id limit ? offset ?`,
    [record.id, page.limit, page.offset],
  );
  return {
    items: rows.map((r) => ({
      id: r.id,
      author: { id: r.author_id, name: r.author_name },
      body: r.body,
      moduleKey: r.module_key,
      stepKey: r.step_key,
      createdAt: new Date(r.created_at),
    })),
    total: record.commentCount,
    ...page,
  };
}

const mergeSchema = compileSchema(mergeInput);
const validateModule = compileSchema(moduleSchema);
const validateStep = compileSchema(stepSchema);

type WireResolution = { kind: string; key: string; take: Resolution['take']; value?: unknown };

/** Wire resolutions in plan form: a custom module or step is checked like a plan's (same key). */
export function parseResolutions(body: unknown): Resolution[] {
  const input = assertValid<{ resolutions?: WireResolution[] }>(mergeSchema, structuredClone(body ?? {}), 'body');
  return (input.resolutions ?? []).map((r, i) => {
    const kind = conflictKindByWire[r.kind]!;
    const at = `body/resolutions/${i}`;
    if (r.take !== 'custom') return { kind, key: r.key, take: r.take };
    if (r.value === undefined || r.value === null) throw invalid(`${at}/value`, 'is required when take is custom');
    if (kind === 'module' || kind === 'step') {
      const value = assertValid<WireModule | WireStep>(kind === 'module' ? validateModule : validateStep, r.value, `${at}/value`);
      if (value.key !== r.key) throw invalid(`${at}/value/key`, `must be "${r.key}", the key of the conflict`);
      return { kind, key: r.key, take: 'custom', value: kind === 'module' ? moduleFromWire(value as WireModule) : stepFromWire(value as WireStep) };
    }
    return { kind, key: r.key, take: 'custom', value: r.value };
  });
}

/** Owner or team editor of the target (403 otherwise; the caller can read it already). */
async function assertTargetEditor(ctx: RequestContext, target: Blueprint, action: string): Promise<void> {
  if (!canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOf(target)))
    throw forbidden(`Only the owner or a team editor of the target blueprint may ${action} a proposal`);
}

/**
 * `POST .../proposals/:number/merge {resolutions?}` (target owner or team editor). Inside one transaction,
 * with the target and proposal rows locked and both plans read afresh: the three-way merge, each
 * resolution applied, 409 CONFLICT listing what is unresolved (nothing written), the plan rules (400),
 * then the target's new plan and version (cause `merge`, `changes.proposal`), the proposal merged, the
 * activity event, a notice in the author's inbox and, for a team target, an audit entry.
 */
export async function mergeProposal(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown, body: unknown): Promise<ProposalView> {
  const viewer = requireViewer(ctx);
  const { target, record } = await proposalFor(ctx, targetIdOrSlug, rawNumber);
  await assertTargetEditor(ctx, target, 'merge');
  const resolutions = parseResolutions(body);
  await ctx.em.transactional(async (tx) => {
    const bp = await tx.findOneOrFail(Blueprint, { id: target.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const locked: Array<{ state: string }> = await tx.execute('select state from proposal where id = ? for update', [record.id]);
    if (locked[0]?.state !== 'open') throw conflict(`Proposal #${record.number} is ${locked[0]?.state ?? 'gone'}, not open`, { state: locked[0]?.state });
    const sourceRows: Array<{ plan: Plan }> = await tx.execute('select plan from blueprint where id = ?', [record.sourceId]);
    // The source was deleted since the proposal was read: the proposal is gone with it.
    if (!sourceRows[0]) throw notFound(`proposal #${record.number} of blueprint`, target.slug);
    const sourcePlan = sourceRows[0].plan;
    const merge = mergeProposalPlans(record.basePlan, bp.plan, sourcePlan, resolutions);
    if (merge.unknown.length > 0)
      throw invalidAll(
        merge.unknown.map((r) => ({
          path: `body/resolutions/${resolutions.indexOf(r)}`,
          message: `names no conflict: ${wireConflictKind(r.kind)} "${r.key}"`,
        })),
      );
    if (merge.unresolved.length > 0)
      throw conflict(`${merge.unresolved.length} conflict(s) need a resolution (ours, theirs or custom) before this proposal can merge`, {
        unresolved: merge.unresolved.map((c) => ({ kind: wireConflictKind(c.kind), key: c.key, reason: c.reason })),
      });
    assertValidPlan(merge.plan, ctx.config.limits, 'merged_plan');
    const diff = diffPlans(bp.plan, merge.plan);
    let version: number | null = null;
    if (!diff.isEmpty) {
      bp.setPlan(merge.plan);
      version = (await recordVersion(tx, bp, viewer.principalId, 'merge', { proposal: record.number, ...planDiffToWire(diff) })).number;
      await tx.flush();
    }
    await tx.execute(
      `update proposal set state = 'merged', merged_at = now(), merged_by_id = ?, merge_version = ?, merged_source_plan = ?::jsonb, updated_at = now()
        where id = ?`,
      [viewer.principalId, version, JSON.stringify(sourcePlan), record.id],
    );
    await publishProposalEvent(ctx, tx, 'proposal_merged', record, viewer.principalId);
    await deliverNotice(tx, ctx, {
      sourceBlueprintId: bp.id,
      senderId: viewer.principalId,
      recipientId: record.author.id,
      message: `Your proposal #${record.number} "${record.title}" was merged into ${bp.name}${version === null ? ' (it changed nothing)' : ` as version ${version}`}.`,
    });
    if (bp.team)
      await recordAudit(tx, {
        teamId: bp.team.id,
        actor: actorOf(ctx),
        action: 'blueprint.proposal_merged',
        targetType: 'blueprint',
        targetId: bp.id,
        details: { proposal: record.number, version },
      });
  });
  return reread(ctx, target.id, record.id);
}

/** The proposal after a write, with both blueprints read afresh. */
async function reread(ctx: RequestContext, targetId: string, proposalId: string): Promise<ProposalView> {
  ctx.loaders.clear();
  ctx.em.clear();
  const target = await getBlueprint(ctx, targetId);
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(`select ${proposalColumns} from proposal p ${proposalJoins} where p.id = ?`, [proposalId]);
  const record = toProposalRecord(rows[0]!);
  const { source } = await findProposal(ctx, target, record.number);
  return viewOf(record, target, source);
}

/**
 * `POST .../close` and `POST .../reopen` (the author, or the target's owner or a team editor). Closing a
 * closed proposal or reopening an open one changes nothing; neither applies to a merged one (409).
 */
export async function setProposalOpen(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown, open: boolean): Promise<ProposalView> {
  const viewer = requireViewer(ctx);
  const { target, record } = await proposalFor(ctx, targetIdOrSlug, rawNumber);
  if (record.author.id !== viewer.principalId) await assertTargetEditor(ctx, target, open ? 'reopen' : 'close');
  await ctx.em.transactional(async (tx) => {
    const locked: Array<{ state: string }> = await tx.execute('select state from proposal where id = ? for update', [record.id]);
    const state = locked[0]?.state;
    if (state === 'merged') throw conflict(`Proposal #${record.number} is merged; it can no longer be ${open ? 'reopened' : 'closed'}`, { state });
    if (state === (open ? 'open' : 'closed')) return;
    await tx.execute('update proposal set state = ?, updated_at = now() where id = ?', [open ? 'open' : 'closed', record.id]);
    await publishProposalEvent(ctx, tx, open ? 'proposal_opened' : 'proposal_closed', record, viewer.principalId);
  });
  return reread(ctx, target.id, record.id);
}
