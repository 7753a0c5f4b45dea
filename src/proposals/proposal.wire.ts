import { toCard } from '../blueprints/blueprint.wire';
import type { JsonDiff } from '../plans/algebra';
import { moduleToWire, stepToWire, wireName, type PlanModule, type PlanStep } from '../plans/plan';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { listProposalComments, type ProposalComment } from './proposal-actions.service';
import { wireConflictKind, type KeyChange, type ProposalConflict } from './proposal.merge';
import { listProposals, parseStateFilter, type ProposalView } from './proposal.service';

const wire = (name: string) => wireName[name] ?? name;
const keyToWire = (c: KeyChange) => ({ key: c.key, change: c.change, fields: c.fields.map(wire) });
const jsonDiffToWire = (d: JsonDiff) => ({ added: d.added, removed: d.removed, changed: d.changed });

/** A conflict's versions in the wire form of their kind (modules and steps snake_case, JSON as is). */
function versionToWire(kind: ProposalConflict['kind'], value: unknown): unknown {
  if (value === undefined) return null;
  if (kind === 'module') return moduleToWire(value as PlanModule);
  if (kind === 'step') return stepToWire(value as PlanStep);
  return value;
}

export function conflictToWire(c: ProposalConflict) {
  return {
    kind: wireConflictKind(c.kind),
    key: c.key,
    reason: c.reason,
    base: versionToWire(c.kind, c.base),
    ours: versionToWire(c.kind, c.ours),
    theirs: versionToWire(c.kind, c.theirs),
  };
}

/** The REST proposal body of docs/proposals.md (also MCP). */
export function toProposalBody(p: ProposalView) {
  return {
    number: p.number,
    target: toCard(p.target),
    source: toCard(p.source),
    author: p.author,
    title: p.title,
    body: p.body,
    state: p.state,
    base_version: p.baseVersion,
    changes: {
      modules: p.changes.modules.map(keyToWire),
      steps: p.changes.steps.map(keyToWire),
      steps_reordered: p.changes.stepsReordered,
      configuration: jsonDiffToWire(p.changes.configuration),
      design_system: jsonDiffToWire(p.changes.designSystem),
    },
    conflicts: p.conflicts.map(conflictToWire),
    mergeable: p.mergeable,
    comment_count: p.commentCount,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    merged_at: p.mergedAt?.toISOString() ?? null,
    merged_by: p.mergedBy,
    merge_version: p.mergeVersion,
  };
}

export function toCommentBody(c: ProposalComment) {
  return { id: c.id, author: c.author, body: c.body, module_key: c.moduleKey, step_key: c.stepKey, created_at: c.createdAt.toISOString() };
}

/** `GET /api/blueprints/:target/proposals` (REST and MCP). */
export async function proposalListBody(ctx: RequestContext, target: string, query: { state?: unknown; limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const list = await listProposals(ctx, target, parseStateFilter(query.state), page);
  return { items: list.items.map(toProposalBody), total: list.total, limit: list.limit, offset: list.offset };
}

/** `GET .../proposals/:number/comments` (REST and MCP). */
export async function commentListBody(ctx: RequestContext, target: string, number: unknown, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const list = await listProposalComments(ctx, target, number, page);
  return { items: list.items.map(toCommentBody), total: list.total, limit: list.limit, offset: list.offset };
}
