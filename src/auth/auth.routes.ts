import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { authSchemas } from './auth.schemas';
import { createAgentSession, revokeViewerToken } from './auth.service';

export const authRoutes: RouteModule = (app, deps) => {
  /** No authentication: an agent provisions its own session. Rate limited per IP. */
  app.post<{ Body: { name?: string } | undefined }>(
    '/api/agent/sessions',
    {
      config: { rateLimit: { max: deps.config.limits.sessionCreatesPerHour, timeWindow: 3_600_000, keyGenerator: (req) => req.ip } },
      schema: authSchemas.createSession,
    },
    async (request, reply) => {
      const session = await createAgentSession(deps.orm.em.fork(), deps.config.limits, request.body?.name);
      return reply.status(201).send({ token: session.token, session_id: session.sessionId, expires_at: session.expiresAt.toISOString() });
    },
  );

  /** Ends the caller's own session: the presented token stops working. */
  app.delete('/api/agent/sessions/current', { schema: authSchemas.revokeSession }, async (request, reply) => {
    await revokeViewerToken(await requestContext(request, deps));
    return reply.status(204).send();
  });
};
