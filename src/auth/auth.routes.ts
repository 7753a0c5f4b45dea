import { requestContext } from '../platform/http/http';
import { sessionCreateKey } from '../platform/http/rate-limit';
import type { RouteModule } from '../platform/http/routes';
import { authContract } from './auth.contract';
import { createAgentSession, endAgentSession } from './auth.service';

export const authRoutes: RouteModule = (app, deps) => {
  /** No authentication: an agent provisions its own session. Rate limited per IP. */
  app.post<{ Body: { name?: string } | undefined }>(
    '/api/agent/sessions',
    {
      config: {
        public: true,
        rateLimit: { max: deps.config.limits.sessionCreatesPerHour, timeWindow: 3_600_000, keyGenerator: (req) => sessionCreateKey(req.ip) },
      },
      schema: authContract.createSession,
    },
    async (request, reply) => {
      const session = await createAgentSession(deps.orm.em.fork(), deps.config.limits, request.body?.name);
      return reply.status(201).send({ token: session.token, session_id: session.sessionId, expires_at: session.expiresAt.toISOString() });
    },
  );

  /** Ends the caller's own agent session: the presented token stops working. Other token kinds: 400. */
  app.delete('/api/agent/sessions/current', { schema: authContract.revokeSession }, async (request, reply) => {
    await endAgentSession(await requestContext(request, deps));
    return reply.status(204).send();
  });
};
