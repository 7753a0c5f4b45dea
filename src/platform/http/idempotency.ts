import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../context';
import { conflict, errorBody, publicError, validationFailed } from '../errors';
import { requestContext } from './http';
import type { AppDeps } from './request-context';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route creates something and honours `Idempotency-Key` (see registerIdempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency?: { ctx: RequestContext; key: string; open: boolean };
  }
}

/** Visible ASCII, as the IETF Idempotency-Key draft suggests (UUIDs, ULIDs, random strings). */
const KEY = /^[\x21-\x7e]{1,200}$/;

/** What makes two requests "the same": method, URL (with query) and the parsed JSON body. */
function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.url, request.body ?? null]))
    .digest('hex');
}

async function rollback(ctx: RequestContext): Promise<void> {
  await ctx.em.rollback().catch(() => undefined);
}

/**
 * `Idempotency-Key` on the POSTs that create things (routes with `config: { idempotent: true }`).
 *
 * With a key, the whole request runs in ONE transaction opened here: the key row is claimed first
 * (`insert ... on conflict do nothing`), the route's own transaction nests inside it as a savepoint,
 * and the answer is stored in the key row and committed just before it is sent. So the key and the effect
 * commit together or not at all. A second request with the same key and principal:
 * - while the first is running, waits on the key row's unique index, then replays the first answer;
 * - after it committed, replays its status and body (header `Idempotent-Replayed: true`), writing nothing;
 * - with another method, URL or body, is 409 CONFLICT;
 * - after the first answered 4xx/5xx (nothing was written, nothing is kept), runs again.
 * Keys are per principal (anonymous requests ignore the header; these routes answer 401 anyway) and
 * expire after `database.idempotencyKeyMs` (24 h), after which a key may be reused.
 */
export function registerIdempotency(app: FastifyInstance, deps: AppDeps): void {
  const ttlMs = deps.config.database.idempotencyKeyMs;

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY.test(key))
      throw validationFailed('Idempotency-Key must be 1 to 200 visible ASCII characters', {
        issues: [{ path: 'Idempotency-Key', message: 'must be 1 to 200 visible ASCII characters' }],
      });
    const ctx = await requestContext(request, deps);
    if (!ctx.viewer) return;
    const principalId = ctx.viewer.principalId;
    const hash = requestHash(request);
    await ctx.em.begin();
    try {
      await ctx.em.execute('delete from idempotency_key where principal_id = ? and key = ? and expires_at <= now()', [principalId, key]);
      const claimed: unknown[] = await ctx.em.execute(
        `insert into idempotency_key (principal_id, key, request_hash, status_code, content_type, body, expires_at)
         values (?, ?, ?, 0, '', '', now() + ? * interval '1 millisecond') on conflict do nothing returning 1`,
        [principalId, key, hash, ttlMs],
      );
      if (claimed.length > 0) {
        request.idempotency = { ctx, key, open: true };
        return;
      }
      const rows: Array<{ request_hash: string; status_code: number; content_type: string; body: string }> = await ctx.em.execute(
        'select request_hash, status_code, content_type, body from idempotency_key where principal_id = ? and key = ?',
        [principalId, key],
      );
      await rollback(ctx);
      const first = rows[0];
      // Gone between the conflict and the read: it expired and was reused just now; the client may retry.
      if (!first) throw conflict('This Idempotency-Key is being reused right now; retry', { idempotency_key: key });
      if (first.request_hash !== hash)
        throw conflict('This Idempotency-Key was already used for a different request (method, path or body)', { idempotency_key: key });
      return reply.status(first.status_code).header('content-type', first.content_type).header('idempotent-replayed', 'true').send(first.body);
    } catch (err) {
      await rollback(ctx);
      throw err;
    }
  });

  // Runs before the answer is written: the effect, the key and the answer commit together, or the
  // client gets an error instead of an answer that was never stored.
  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.idempotency;
    if (!state?.open) return payload;
    state.open = false;
    const { ctx } = state;
    if (reply.statusCode >= 400) {
      await rollback(ctx);
      return payload;
    }
    try {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : JSON.stringify(payload ?? null);
      await ctx.em.execute('update idempotency_key set status_code = ?, content_type = ?, body = ? where principal_id = ? and key = ?', [
        reply.statusCode,
        String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        body,
        ctx.viewer!.principalId,
        state.key,
      ]);
      await ctx.em.commit();
      return payload;
    } catch (err) {
      await rollback(ctx);
      const error = publicError(err, request.id, deps.config.database.retryAfterSeconds, (cause) =>
        request.log.error({ err: cause, requestId: request.id }, 'idempotent commit failed'),
      );
      if (error.code === 'UNAVAILABLE') reply.header('retry-after', String(deps.config.database.retryAfterSeconds));
      reply.status(error.status).header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify(errorBody(error));
    }
  });

  // A request that ended without sending (or whose onSend never ran) must not keep its connection.
  app.addHook('onResponse', async (request) => {
    if (request.idempotency?.open) {
      request.idempotency.open = false;
      await rollback(request.idempotency.ctx);
    }
  });
}
