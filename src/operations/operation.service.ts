import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Principal } from '../auth/principal.entity';
import { requireViewer } from '../auth/auth.service';
import { assertEditable, assertReadable } from '../blueprints/access';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { getBlueprints } from '../blueprints/blueprint.service';
import { isUuid } from '../platform/sql/ids';
import type { RequestContext } from '../platform/context';
import { Loaders } from '../platform/loaders';
import { conflict, invalid, notFound, staleStepToken } from '../platform/errors';
import { assertValid, validatorFor, type JsonSchema } from '../platform/json-schema';
import { hashToken, newToken, tokenMatches } from '../platform/sql/tokens';
import type { ToolContext, ToolDefinition } from './tool-definition';
import { OperationStatus, ToolOperation } from './tool-operation.entity';
import { isToolType, toolTypes } from './tool-types';
import { toolDefinitions } from './tools';

export interface StartInput {
  toolType: unknown;
  sourceBlueprintIds?: unknown;
  params?: unknown;
}

/** What start, submit and status answer (docs/api.md); `token` only on start and submit. */
export interface OperationView {
  operation: ToolOperation;
  prompt: string | null;
  stepTitle: string | null;
  submissionSchema: JsonSchema | null;
  token: string | null;
  done: boolean;
}

function definitionOf(toolType: unknown): ToolDefinition {
  if (toolType === undefined || toolType === null) throw invalid('tool_type', 'is required');
  if (!isToolType(toolType)) throw invalid('tool_type', 'is not a known tool type', `tool_type must be one of: ${toolTypes.join(', ')}`);
  const def = toolDefinitions.get(toolType);
  if (!def) throw invalid('tool_type', 'is not available yet', `tool_type "${toolType}" is not available yet`);
  return def;
}

async function loadSources(ctx: RequestContext, def: ToolDefinition, ids: string[]): Promise<Blueprint[]> {
  const sources = await getBlueprints(ctx, ids);
  if (def.sourceAccess === 'edit') for (const bp of sources) await assertEditable(ctx, bp, bp.id);
  else for (const bp of sources) await assertReadable(ctx, bp, bp.id);
  return sources;
}

function parseSourceIds(raw: unknown, def: ToolDefinition): string[] {
  const ids = raw === undefined || raw === null ? [] : raw;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw invalid('source_blueprint_ids', 'must be an array of strings', 'source_blueprint_ids must be an array of blueprint ids');
  const { min, max } = def.sources;
  if (ids.length < min || ids.length > max) {
    const want = min === max ? `exactly ${min}` : max >= 99 ? `at least ${min}` : `${min} to ${max}`;
    throw invalid('source_blueprint_ids', `must hold ${want} ids`, `${def.type} takes ${want} source blueprint(s); got ${ids.length}`);
  }
  if (new Set(ids).size !== ids.length) throw invalid('source_blueprint_ids', 'repeats an id', 'source_blueprint_ids must not repeat an id');
  for (const id of ids) if (!isUuid(id)) throw notFound('blueprint', id);
  return ids.map((id) => id.toLowerCase());
}

function view(c: ToolContext, def: ToolDefinition, token: string | null): OperationView {
  const op = c.operation;
  if (op.status !== OperationStatus.ACTIVE)
    return { operation: op, prompt: null, stepTitle: null, submissionSchema: null, token: null, done: op.status === OperationStatus.COMPLETED };
  const step = def.steps(c)[op.step - 1]!;
  return { operation: op, prompt: step.prompt(c), stepTitle: step.title, submissionSchema: step.submissionSchema, token, done: false };
}

async function publishUpdate(ctx: RequestContext, tx: EntityManager, op: ToolOperation): Promise<void> {
  await ctx.events.publish(tx, 'operation.updated', { operationId: op.id, principalId: op.principal.id, status: op.status, step: op.step });
}

/** Starts an operation: validates type, sources, params and access; returns step 1 and its token. */
export async function startOperation(ctx: RequestContext, input: StartInput): Promise<OperationView> {
  const viewer = requireViewer(ctx);
  const def = definitionOf(input.toolType);
  const sourceIds = parseSourceIds(input.sourceBlueprintIds, def);
  const rawParams = input.params ?? {};
  if (typeof rawParams !== 'object' || Array.isArray(rawParams)) throw invalid('params', 'must be an object');
  const params = assertValid<Record<string, unknown>>(validatorFor(def.paramsSchema), structuredClone(rawParams), 'params');
  const sources = await loadSources(ctx, def, sourceIds);
  return ctx.em.transactional(async (tx) => {
    const op = new ToolOperation({
      toolType: def.type,
      principal: tx.getReference(Principal, viewer.principalId, { wrapped: true }),
      totalSteps: 0,
      sourceIds,
      params,
    });
    const c: ToolContext = { ctx: { ...ctx, em: tx, loaders: new Loaders() }, tx, operation: op, sources, params, state: {} };
    await def.checkStart?.(c);
    op.state = (await def.initialState(c)) as Record<string, unknown>;
    c.state = op.state;
    op.totalSteps = def.steps(c).length;
    const token = newToken('step');
    op.tokenHash = hashToken(token);
    tx.persist(op);
    await tx.flush();
    await publishUpdate(ctx, tx, op);
    return view(c, def, token);
  });
}

/** Loads an operation of the viewer's (others: 404), marking it expired when it has idled too long. */
async function lockOperation(ctx: RequestContext, tx: EntityManager, operationId: string, lock: boolean): Promise<ToolOperation> {
  const viewer = requireViewer(ctx);
  if (!isUuid(operationId)) throw notFound('operation', operationId);
  const op = await tx.findOne(ToolOperation, { id: operationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!op || op.principal.id !== viewer.principalId) throw notFound('operation', operationId);
  if (op.status === OperationStatus.ACTIVE && Date.now() - op.lastActivityAt.getTime() > ctx.config.limits.operationIdleMs) {
    op.status = OperationStatus.EXPIRED;
    op.tokenHash = null;
    await tx.flush();
    await publishUpdate(ctx, tx, op);
  }
  return op;
}

/**
 * The tool context inside a transaction. Its request context reads through `tx` too (with fresh loaders):
 * reading on another pooled connection while this one is held starves the pool under concurrency.
 */
async function contextOf(ctx: RequestContext, tx: EntityManager, op: ToolOperation, def: ToolDefinition): Promise<ToolContext> {
  const txCtx: RequestContext = { ...ctx, em: tx, loaders: new Loaders() };
  const sources = op.status === OperationStatus.ACTIVE ? await loadSources(txCtx, def, op.sourceIds) : [];
  return { ctx: txCtx, tx, operation: op, sources, params: op.params, state: op.state };
}

/**
 * Accepts one submission. The row is locked for the whole transaction, so of two submissions with one
 * token exactly one wins; the other then sees a rotated token and gets 409 STALE_STEP_TOKEN. A failed
 * validation rolls everything back: the operation keeps its step and its token.
 */
export async function submitStep(ctx: RequestContext, operationId: string, token: unknown, submission: unknown): Promise<OperationView> {
  if (typeof token !== 'string' || token === '') throw invalid('token', 'must be a non-empty string', 'token (the current step token) is required');
  if (submission === null || typeof submission !== 'object' || Array.isArray(submission)) throw invalid('submission', 'must be an object');
  type Outcome = { view: OperationView } | { finished: ToolOperation };
  const result = await ctx.em.transactional(async (tx): Promise<Outcome> => {
    const op = await lockOperation(ctx, tx, operationId, true);
    if (op.status !== OperationStatus.ACTIVE) return { finished: op };
    if (!op.tokenHash || !tokenMatches(token, op.tokenHash)) throw staleStepToken();
    const def = definitionOf(op.toolType);
    const c = await contextOf(ctx, tx, op, def);
    const step = def.steps(c)[op.step - 1]!;
    const accepted = assertValid<Record<string, unknown>>(validatorFor(step.submissionSchema), structuredClone(submission), 'submission');
    c.state = (await step.accept(c, accepted)) as Record<string, unknown>;
    op.state = c.state;
    op.lastActivityAt = new Date();
    let next: string | null = null;
    if (op.step < op.totalSteps) {
      op.step += 1;
      next = newToken('step');
      op.tokenHash = hashToken(next);
    } else {
      op.result = await def.finish(c);
      op.status = OperationStatus.COMPLETED;
      op.step = op.totalSteps;
      op.tokenHash = null;
    }
    await tx.flush();
    await publishUpdate(ctx, tx, op);
    return { view: view(c, def, next) };
  });
  if ('view' in result) {
    ctx.loaders.clear();
    return result.view;
  }
  // Thrown outside the transaction so that marking an idle operation expired is kept.
  throw conflict(`The operation is ${result.finished.status}; it takes no more submissions`, { status: result.finished.status });
}

/** The operation's status, current step and result; no token. */
export async function getOperation(ctx: RequestContext, operationId: string): Promise<OperationView> {
  return ctx.em.transactional(async (tx) => {
    const op = await lockOperation(ctx, tx, operationId, false);
    const def = definitionOf(op.toolType);
    return view(await contextOf(ctx, tx, op, def), def, null);
  });
}

/** Cancels an active operation; cancelling a cancelled one again is a no-op, a finished one is 409. */
export async function cancelOperation(ctx: RequestContext, operationId: string): Promise<OperationView> {
  const outcome = await ctx.em.transactional(async (tx) => {
    const op = await lockOperation(ctx, tx, operationId, true);
    const def = definitionOf(op.toolType);
    if (op.status === OperationStatus.ACTIVE) {
      op.status = OperationStatus.CANCELLED;
      op.tokenHash = null;
      op.lastActivityAt = new Date();
      await tx.flush();
      await publishUpdate(ctx, tx, op);
    }
    return { op, def };
  });
  if (outcome.op.status !== OperationStatus.CANCELLED)
    throw conflict(`The operation is ${outcome.op.status} and cannot be cancelled`, { status: outcome.op.status });
  return { operation: outcome.op, prompt: null, stepTitle: null, submissionSchema: null, token: null, done: false };
}
