import type { PlanDiff } from '../plans/algebra';
import { wireName } from '../plans/plan';
import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import { historyOf, versionsOf, type VersionEntry } from './history.service';

/** The REST version body of docs/api.md. */
export function toVersionBody(v: VersionEntry) {
  return { number: v.number, created_at: v.createdAt.toISOString(), author_id: v.authorId, cause: v.cause, changes: v.changes };
}

/** `GET /api/blueprints/:id/versions` (REST and MCP): the plan's history, newest first; owner only. */
export async function versionsBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  const page = pageFromQuery(query, ctx.config.limits);
  const bp = await historyOf(ctx, idOrSlug);
  const versions = await versionsOf(ctx, bp.id, page);
  return { items: versions.items.map(toVersionBody), total: versions.total, ...page };
}

const wireField = (f: string) => wireName[f] ?? f;

/**
 * A plan diff in the snake_case wire form: the `difference` report and the `changes` metadata of
 * every version an INPLACE tool writes.
 */
export function planDiffToWire(d: PlanDiff) {
  const changed = (items: PlanDiff['modules']['changed']) => items.map((c) => ({ key: c.key, fields: c.fields.map(wireField) }));
  return {
    sections_touched: d.sectionsTouched.map(wireField),
    modules: { added: d.modules.added, removed: d.modules.removed, changed: changed(d.modules.changed) },
    steps: { added: d.steps.added, removed: d.steps.removed, changed: changed(d.steps.changed), reordered: d.steps.reordered },
    configuration: d.configuration,
    design_system: d.designSystem,
    is_empty: d.isEmpty,
  };
}

export type WirePlanDiff = ReturnType<typeof planDiffToWire>;
