import { AppError, validationFailed } from '../errors';

/**
 * The work budget of one GraphQL answer (docs/limits.md, "Response budget"). Fields whose size is only
 * known per row (a blueprint's plan: up to `planMaxBytes` each, and a list can hold a hundred of them)
 * charge what they are about to return, from figures the row already carries, BEFORE they load or
 * produce it. The first charge over the budget marks the answer refused: loaders stop loading, and the
 * transports (graphql-plugins.ts over HTTP, graphql.ts over graphql-ws) answer that one error instead of
 * a partial result. One answer is an HTTP operation, a WebSocket operation, or one event of a subscription
 * (`resetResponseBudget` at the start of each event).
 *
 * Kept beside the context rather than in it: any object that is the context of one answer can carry it.
 */
interface Budget {
  spent: number;
  refusal: AppError | null;
  /** Per source object (a blueprint row), the fields already charged for it. */
  charged: WeakMap<object, Set<string>>;
}

const budgets = new WeakMap<object, Budget>();

function budgetOf(ctx: object): Budget {
  let budget = budgets.get(ctx);
  if (!budget) budgets.set(ctx, (budget = { spent: 0, refusal: null, charged: new WeakMap() }));
  return budget;
}

/**
 * Charges `bytes` for `field` to this answer's budget of `max` bytes; throws (and keeps) the refusal when
 * the answer would go over it. Every later charge throws the same refusal.
 */
export function chargeResponse(ctx: object, bytes: number, max: number, field: string): void {
  const budget = budgetOf(ctx);
  if (budget.refusal) throw budget.refusal;
  budget.spent += bytes;
  if (budget.spent <= max) return;
  budget.refusal = validationFailed(
    `This answer would carry more than ${max} bytes of plans (at ${field}); ask for fewer blueprints (first/limit) or fewer plan fields (modules, steps, configuration, designSystem)`,
    { response_plan_bytes: budget.spent, max_response_plan_bytes: max },
  );
  throw budget.refusal;
}

/**
 * Charges a part of `source` (a field of one row) whose parts together are at most `bytes`: the first part
 * of a source pays `bytes`, its other distinct parts are free (already paid for), and a part asked for again
 * (an alias) pays `bytes` again. So the charges are never less than what the answer carries.
 */
export function chargeResponsePart(ctx: object, source: object, part: string, bytes: number, max: number, field: string): void {
  const budget = budgetOf(ctx);
  if (budget.refusal) throw budget.refusal;
  let parts = budget.charged.get(source);
  if (!parts) budget.charged.set(source, (parts = new Set()));
  const free = parts.size > 0 && !parts.has(part);
  parts.add(part);
  if (!free) chargeResponse(ctx, bytes, max, field);
}

/** The refusal of this answer, once a charge went over its budget; null while it is within. */
export function responseRefusal(ctx: object): AppError | null {
  return budgets.get(ctx)?.refusal ?? null;
}

/** A new answer on the same context (the next event of a subscription): nothing spent, nothing refused. */
export function resetResponseBudget(ctx: object): void {
  budgets.delete(ctx);
}
