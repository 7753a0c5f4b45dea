import DataLoader from 'dataloader';
import type { Plan } from '../plans/plan';
import { sqlEm, type RequestContext } from '../platform/context';
import { executeShaped } from '../platform/sql/database';
import { notFound } from '../platform/errors';
import { byKeys } from '../platform/loaders';
import { amongKeys } from '../platform/sql/pg-array';
import { chargeResponsePart, refuseIfOver, responseRefusal } from '../platform/graphql/response-budget';
import { ownTurn } from '../platform/live/fanout';
import type { BlueprintView } from './blueprint.view';
import { BlueprintRow, type BlueprintProjection } from './blueprint.projection';

/**
 * The plan fields of a GraphQL blueprint (`modules`, `steps`, `configuration`, `designSystem`) within the
 * answer's work budget (platform/graphql/response-budget.ts). Lists read their rows without the plan (the
 * projection selects `plan_bytes` instead); each plan field charges its row's whole plan size first, and
 * only then are the plans of the rows still within the budget read, in one statement per tick. A list of
 * a hundred plans at the size limit is refused before any of them leaves PostgreSQL.
 */

/** JSON sizes of plans already in memory (managed entities), computed once per plan object. */
const sizes = new WeakMap<Plan, number>();

/** What a plan field of this blueprint costs: its stored plan's size as JSON text. */
export function planBytesOf(bp: BlueprintView): number {
  if (bp instanceof BlueprintRow && bp.planBytes !== undefined) return bp.planBytes;
  const plan = bp.plan; // an entity, or a row read with every column: the plan is there
  let size = sizes.get(plan);
  if (size === undefined) sizes.set(plan, (size = Buffer.byteLength(JSON.stringify(plan))));
  return size;
}

function planLoader(ctx: RequestContext): DataLoader<string, Plan | null> {
  return ctx.loaders.get(
    'blueprint.plan',
    () =>
      new DataLoader<string, Plan | null>(async (ids) => {
        // A charge of this tick went over the budget: the answer is refused, read nothing.
        const refused = responseRefusal(ctx);
        if (refused) return ids.map(() => refused);
        const among = amongKeys('id', ids, 'uuid');
        const rows = await executeShaped<{ id: string; plan: Plan }>(sqlEm(ctx), {
          sql: `select id, plan from blueprint where ${among.sql}`,
          params: among.params,
        });
        // Executing and serialising up to a budget's worth of plans is an answer's longest stretch of work:
        // answers whose plans arrived together take their turns one at a time (fanout.ts).
        await ownTurn();
        return byKeys(ids, rows, (r) => r.id).map((r) => r?.plan ?? null);
      }),
  );
}

/**
 * The plan of the blueprint `id`, batched with every other plan of this tick, read only while the answer
 * is within its budget. The caller charges it first (`chargeResponsePart`). Null when there is no such row.
 */
export function planById(ctx: RequestContext, id: string): Promise<Plan | null> {
  return planLoader(ctx).load(id);
}

/**
 * The plan of `bp` for the plan field `field`, charged to the answer's budget: throws VALIDATION_FAILED
 * (and refuses the whole answer) when it would go over `responsePlanBytesMax`.
 */
export async function planFor(ctx: RequestContext, bp: BlueprintView, field: string): Promise<Plan> {
  // The plan's fields together are the plan: the first one asked of a row pays for all, an alias pays again.
  chargeResponsePart(ctx, bp, field, planBytesOf(bp), ctx.config.limits.responsePlanBytesMax, `Blueprint.${field}`);
  if (!(bp instanceof BlueprintRow) || bp.hasPlan()) return bp.plan;
  const plan = await planLoader(ctx).load(bp.id);
  if (!plan) throw notFound('blueprint', bp.id); // deleted between the list and its plans
  bp.plan = plan;
  return plan;
}

/**
 * A page of blueprints whose selection asks each of them for a plan field (`projection` reads their plan
 * sizes, not their plans), checked before its items are resolved: when their plans together would take
 * the answer over its budget, the answer is refused here, once. Each item's plan field would be refused
 * anyway, but by a resolver call and an error of its own (~0.1 ms each, a hundred per list). Charges
 * nothing otherwise: the items charge themselves as before. `field` names the list in the refusal.
 */
export function refuseOverBudgetPage<P>(
  ctx: RequestContext,
  projection: BlueprintProjection | null,
  field: string,
  page: P,
  items: (page: P) => readonly BlueprintView[],
): P {
  if (!projection?.includes('plan_bytes') || projection.includes('plan')) return page;
  let bytes = 0;
  for (const bp of items(page)) bytes += planBytesOf(bp);
  refuseIfOver(ctx, bytes, ctx.config.limits.responsePlanBytesMax, field);
  return page;
}

/** The items of a `{ items }` page, for {@link refuseOverBudgetPage}. */
export const pageItems = (page: { items: readonly BlueprintView[] }) => page.items;

/** The nodes of a connection's edges, for {@link refuseOverBudgetPage}. */
export const edgeNodes = (connection: { edges: ReadonlyArray<{ node: BlueprintView }> }) => connection.edges.map((e) => e.node);
