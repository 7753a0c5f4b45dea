/**
 * Proposals (docs/proposals.md): a descendant of a blueprint (fork or breed child, any depth) offers its
 * changes to that ancestor. Reads compute `changes` and `conflicts` from the stored merge base against the
 * current plans of both sides, so a proposal stays right while either moves; a fixed number of statements
 * per read, whatever the plans' size. A proposal whose source the caller may not read does not exist for
 * them: not listed, not counted, 404 by number.
 */
import { randomUUID } from 'node:crypto';
import { requireViewer } from '../auth/auth.service';
import { canEditWith, canRead, guardOf, readableBySql, readableSql, viewerTeamRoles } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { getBlueprint } from '../blueprints/blueprint.service';
import type { Plan } from '../plans/plan';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../platform/context';
import { forbidden, invalid, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { openInput } from './proposal.contract';
import type { Page, PageRequest } from '../platform/pagination';
import { lineagePath, mergeBaseOf } from './proposal.base';
import { proposalChanges, proposalConflicts, type ProposalChanges, type ProposalConflict } from './proposal.merge';

export type ProposalState = 'open' | 'merged' | 'closed';
export const proposalStates: readonly ProposalState[] = ['open', 'merged', 'closed'];

/** A proposal row with its author's and merger's names. */
export interface ProposalRecord {
  id: string;
  targetId: string;
  number: number;
  sourceId: string;
  author: { id: string; name: string };
  title: string;
  body: string;
  state: ProposalState;
  baseVersion: number | null;
  basePlan: Plan;
  commentCount: number;
  createdAt: Date;
  updatedAt: Date;
  mergedAt: Date | null;
  mergedBy: { id: string; name: string } | null;
  mergeVersion: number | null;
}

/** A proposal as every surface answers it: the record, both blueprints and what it changes now. */
export interface ProposalView extends ProposalRecord {
  target: Blueprint;
  source: Blueprint;
  changes: ProposalChanges;
  conflicts: ProposalConflict[];
  /** Open, and no conflict left: a merge without resolutions would succeed. */
  mergeable: boolean;
}

export const proposalColumns = `p.id, p.target_id, p.number, p.source_id, p.author_id, a.name as author_name, p.title, p.body, p.state,
  p.base_version, p.base_plan, p.comment_count, p.created_at, p.updated_at, p.merged_at, p.merged_by_id, m.name as merged_by_name, p.merge_version`;
export const proposalJoins = 'join principal a on a.id = p.author_id left join principal m on m.id = p.merged_by_id';

const toDate = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));

export function toProposalRecord(r: Record<string, any>): ProposalRecord {
  return {
    id: r.id,
    targetId: r.target_id,
    number: Number(r.number),
    sourceId: r.source_id,
    author: { id: r.author_id, name: r.author_name },
    title: r.title,
    body: r.body,
    state: r.state,
    baseVersion: r.base_version === null ? null : Number(r.base_version),
    basePlan: r.base_plan,
    commentCount: Number(r.comment_count),
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    mergedAt: r.merged_at ? toDate(r.merged_at) : null,
    mergedBy: r.merged_by_id ? { id: r.merged_by_id, name: r.merged_by_name } : null,
    mergeVersion: r.merge_version === null || r.merge_version === undefined ? null : Number(r.merge_version),
  };
}

/** The record with what it proposes now: the base against the two current plans. */
export function viewOf(record: ProposalRecord, target: Blueprint, source: Blueprint): ProposalView {
  const changes = proposalChanges(record.basePlan, source.plan);
  const conflicts = record.state === 'open' ? proposalConflicts(record.basePlan, target.plan, source.plan) : [];
  return { ...record, target, source, changes, conflicts, mergeable: record.state === 'open' && conflicts.length === 0 };
}

export type ProposalEventKind = 'proposal_opened' | 'proposal_commented' | 'proposal_merged' | 'proposal_closed';

/**
 * A proposal's `blueprintActivity` event on its target, in the write's transaction. It carries the
 * source, so that only receivers who may read the source hear of it (docs/proposals.md, "Privacy").
 */
export function publishProposalEvent(
  ctx: RequestContext,
  tx: EntityManager,
  kind: ProposalEventKind,
  p: { id: string; targetId: string; sourceId: string },
  actorId: string,
): Promise<void> {
  return ctx.events.publish(tx, 'blueprint.activity', { blueprintId: p.targetId, kind, subjectId: p.id, actorId, sourceId: p.sourceId });
}

/** `:number` of a path: a positive integer, else 400. */
export function parseProposalNumber(raw: unknown): number {
  const text = typeof raw === 'number' ? String(raw) : String(raw ?? '');
  if (!/^[1-9]\d{0,8}$/.test(text)) throw invalid('number', 'must be a positive integer');
  return Number(text);
}

/**
 * The proposal `number` of a target the caller may read, with its source, when the caller may read the
 * source too; 404 otherwise (the same answer as for a number that does not exist).
 */
export async function findProposal(ctx: RequestContext, target: Blueprint, number: number): Promise<{ record: ProposalRecord; source: Blueprint }> {
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select ${proposalColumns} from proposal p ${proposalJoins} where p.target_id = ? and p.number = ?`,
    [target.id, number],
  );
  const missing = () => notFound(`proposal #${number} of blueprint`, target.slug);
  if (!rows[0]) throw missing();
  const record = toProposalRecord(rows[0]);
  const source = await blueprintLoaders(ctx).byId.load(record.sourceId);
  if (!source || !(await canRead(ctx, guardOf(source)))) throw missing();
  return { record, source };
}

/** `GET /api/blueprints/:target/proposals/:number`. */
export async function getProposal(ctx: RequestContext, targetIdOrSlug: string, rawNumber: unknown): Promise<ProposalView> {
  const number = parseProposalNumber(rawNumber);
  const target = await getBlueprint(ctx, targetIdOrSlug);
  const { record, source } = await findProposal(ctx, target, number);
  return viewOf(record, target, source);
}

/** `state` of a list: one state or `all` (default `open`). */
export function parseStateFilter(raw: unknown): ProposalState | 'all' {
  if (raw === undefined || raw === null || raw === '') return 'open';
  if (raw === 'all' || proposalStates.includes(raw as ProposalState)) return raw as ProposalState | 'all';
  throw invalid('state', 'must be one of open, merged, closed, all');
}

/**
 * The proposals of a target the caller may read, newest first, leaving out (and not counting) those
 * whose source the caller may not read. Three statements: the target, the page with its total, the sources.
 */
export async function listProposals(ctx: RequestContext, targetIdOrSlug: string, state: ProposalState | 'all', page: PageRequest): Promise<Page<ProposalView>> {
  const target = await getBlueprint(ctx, targetIdOrSlug);
  const readable = readableSql('s', ctx.viewer);
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select ${proposalColumns}, count(*) over () as total
       from proposal p join blueprint s on s.id = p.source_id ${proposalJoins}
      where p.target_id = ? and (?::text = 'all' or p.state = ?) and ${readable.sql}
      order by p.number desc limit ? offset ?`,
    [target.id, state, state, ...readable.params, page.limit, page.offset],
  );
  const total = rows[0] ? Number(rows[0].total) : await countProposals(ctx, target.id, state);
  const records = rows.map(toProposalRecord);
  const sources = await blueprintLoaders(ctx).byId.loadMany(records.map((r) => r.sourceId));
  const items = records.flatMap((r, i) => {
    const source = sources[i];
    return source && !(source instanceof Error) ? [viewOf(r, target, source)] : [];
  });
  return { items, total, ...page };
}

/** The count alone (a page past the end has no row to carry it). */
async function countProposals(ctx: RequestContext, targetId: string, state: ProposalState | 'all'): Promise<number> {
  const readable = readableSql('s', ctx.viewer);
  const rows: Array<{ n: string }> = await ctx.em.execute(
    `select count(*) as n from proposal p join blueprint s on s.id = p.source_id
      where p.target_id = ? and (?::text = 'all' or p.state = ?) and ${readable.sql}`,
    [targetId, state, state, ...readable.params],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface OpenProposalInput {
  source_blueprint_id: string;
  title: string;
  body?: string;
}

const openSchema = compileSchema(openInput);

/**
 * `POST /api/blueprints/:target/proposals`: the caller owns or team-edits the source, the source descends
 * from the target (400 otherwise), and the target's owner may read the source (403 otherwise: a private
 * source would be offered to someone who may not see it). The number is the target's next one: the target
 * row is locked while it is taken, so concurrent opens get 1, 2, 3... The base is computed here, once.
 */
export async function openProposal(ctx: RequestContext, targetIdOrSlug: string, body: unknown): Promise<ProposalView> {
  const viewer = requireViewer(ctx);
  const target = await getBlueprint(ctx, targetIdOrSlug);
  const input = assertValid<OpenProposalInput>(openSchema, structuredClone(body ?? null), 'body');
  const source = await getBlueprint(ctx, input.source_blueprint_id);
  if (source.id === target.id) throw invalid('source_blueprint_id', 'is the target itself', 'A blueprint cannot propose to itself');
  if (!canEditWith(ctx.viewer, await viewerTeamRoles(ctx), guardOf(source)))
    throw forbidden('You may propose only from a blueprint you own or edit as a team member');
  const path = await lineagePath(ctx.em, source.id, target.id, ctx.config.limits.lineageDepthMax);
  if (!path)
    throw invalid(
      'source_blueprint_id',
      'does not descend from the target',
      `The source does not descend from this blueprint (a fork or breed child, up to ${ctx.config.limits.lineageDepthMax} links)`,
    );
  const ownerMayRead: Array<{ ok: boolean }> = await ctx.em.execute(`select ${readableBySql('s', '?')} as ok from blueprint s where s.id = ?`, [
    target.owner.id,
    target.owner.id,
    source.id,
  ]);
  if (!ownerMayRead[0]?.ok) throw forbidden("The target's owner may not read the source blueprint; make it visible to them first");
  const base = await mergeBaseOf(ctx.em, path, target.plan);
  const id = randomUUID();
  await ctx.em.transactional(async (tx) => {
    await tx.execute('select id from blueprint where id = ? for update', [target.id]);
    await tx.execute(
      `insert into proposal (id, target_id, number, source_id, author_id, title, body, base_version, base_plan)
       select ?, ?, coalesce(max(number), 0) + 1, ?, ?, ?, ?, ?, ?::jsonb from proposal where target_id = ?`,
      [id, target.id, source.id, viewer.principalId, input.title.trim(), input.body ?? '', base.version, JSON.stringify(base.plan), target.id],
    );
    await publishProposalEvent(ctx, tx, 'proposal_opened', { id, targetId: target.id, sourceId: source.id }, viewer.principalId);
  });
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(`select ${proposalColumns} from proposal p ${proposalJoins} where p.id = ?`, [id]);
  return viewOf(toProposalRecord(rows[0]!), target, source);
}
