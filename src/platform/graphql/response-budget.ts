import type { Config } from '../config';
import type { Viewer } from '../context';
import { AppError, validationFailed } from '../errors';
import { callerKey } from '../http/rate-limit';

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
 *
 * The answers of one caller in flight at once share a second budget, `responsePlanBytesInFlightMax`: ten
 * answers each within its own budget, sent together, would otherwise hold the event loop ten times as
 * long. A charge that would take the caller's answers in flight over it refuses its answer with
 * RATE_LIMITED (429, retry after a second), before the plans are read; the bytes are given back when the
 * answer is sent (`releaseResponse`) or the next event of a subscription starts (`resetResponseBudget`).
 */
interface Budget {
  spent: number;
  refusal: AppError | null;
  /** Per source object (a blueprint row), the fields already charged for it. */
  charged: WeakMap<object, Set<string>>;
  /** Bytes this answer holds of its caller's in-flight budget, and under which key. */
  held: number;
  holder: { key: string; inFlight: Map<string, number> } | null;
}

/** What a charge needs of the context to count the caller's answers in flight (optional: internal contexts). */
interface CallerContext {
  config?: Config;
  viewer?: Pick<Viewer, 'principalId' | 'kind'> | null;
  clientIp?: string;
  ip?: string;
}

const budgets = new WeakMap<object, Budget>();
/** Per server (its config): plan bytes held by each caller's answers in flight. */
const inFlightByServer = new WeakMap<Config, Map<string, number>>();

function budgetOf(ctx: object): Budget {
  let budget = budgets.get(ctx);
  if (!budget) budgets.set(ctx, (budget = { spent: 0, refusal: null, charged: new WeakMap(), held: 0, holder: null }));
  return budget;
}

/**
 * Takes `bytes` more of the caller's in-flight budget for this answer; the refusal when the caller's
 * answers in flight would hold more than the limit (0: no limit). The caller's key is fixed at the first
 * charge (callerKey: an account, an address's agents, or an address).
 */
function holdInFlight(ctx: CallerContext, budget: Budget, bytes: number): AppError | null {
  const config = ctx.config;
  const max = config?.limits.responsePlanBytesInFlightMax ?? 0;
  if (!config || max <= 0) return null;
  if (!budget.holder) {
    let inFlight = inFlightByServer.get(config);
    if (!inFlight) inFlightByServer.set(config, (inFlight = new Map()));
    budget.holder = { key: callerKey(ctx.viewer, ctx.clientIp ?? ctx.ip ?? 'unknown'), inFlight };
  }
  const { key, inFlight } = budget.holder;
  const held = inFlight.get(key) ?? 0;
  // One answer alone always gets its own budget's worth, even with a smaller in-flight limit.
  if (held > budget.held && held + bytes > max)
    return new AppError(
      'RATE_LIMITED',
      `Your answers in progress already carry ${held} bytes of plans (at most ${max} at once); retry after 1 s, or ask for fewer plans at a time`,
      { retry_after_seconds: 1, plan_bytes_in_flight: held, max_plan_bytes_in_flight: max },
    );
  inFlight.set(key, held + bytes);
  budget.held += bytes;
  return null;
}

/** Gives back what this answer held of its caller's in-flight budget (idempotent). */
function release(budget: Budget): void {
  if (!budget.holder || budget.held === 0) return;
  const { key, inFlight } = budget.holder;
  const left = (inFlight.get(key) ?? 0) - budget.held;
  if (left > 0) inFlight.set(key, left);
  else inFlight.delete(key);
  budget.held = 0;
}

/**
 * Charges `bytes` for `field` to this answer's budget of `max` bytes; throws (and keeps) the refusal when
 * the answer would go over it. Every later charge throws the same refusal.
 */
export function chargeResponse(ctx: object, bytes: number, max: number, field: string): void {
  const budget = budgetOf(ctx);
  if (budget.refusal) throw budget.refusal;
  budget.spent += bytes;
  if (budget.spent <= max) {
    const limited = holdInFlight(ctx as CallerContext, budget, bytes);
    if (!limited) return;
    budget.refusal = limited;
    release(budget);
    throw limited;
  }
  release(budget);
  budget.refusal = validationFailed(
    `This answer would carry more than ${max} bytes of plans (at ${field}); ask for fewer blueprints (first/limit) or fewer plan fields (modules, steps, configuration, designSystem)`,
    { response_plan_bytes: budget.spent, max_response_plan_bytes: max },
  );
  throw budget.refusal;
}

/**
 * Refuses the answer now (and keeps the refusal, as a charge would) when `bytes` more would take it over
 * its budget of `max`; charges nothing otherwise. For a list that knows, before its items are resolved,
 * that their plans together cannot fit: one refusal instead of one per item.
 */
export function refuseIfOver(ctx: object, bytes: number, max: number, field: string): void {
  const budget = budgetOf(ctx);
  if (budget.refusal) throw budget.refusal;
  if (budget.spent + bytes > max) chargeResponse(ctx, bytes, max, field);
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

/** The answer on `ctx` was sent (or failed): its plan bytes no longer count as in flight for its caller. */
export function releaseResponse(ctx: object): void {
  const budget = budgets.get(ctx);
  if (budget) release(budget);
}

/** A new answer on the same context (the next event of a subscription): nothing spent, nothing refused. */
export function resetResponseBudget(ctx: object): void {
  releaseResponse(ctx);
  budgets.delete(ctx);
}

/** Plan bytes held by each caller's answers in flight on this server (tests and metrics). */
export function plansInFlight(config: Config): ReadonlyMap<string, number> {
  return inFlightByServer.get(config) ?? new Map();
}
