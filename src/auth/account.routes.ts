import { requestContext } from '../platform/http/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/http/routes';
import { accountContract } from './auth.contract';
import { signIn, signOut, signUp } from './account.service';
import { createAccessToken, listAccessTokens, revokeAccessToken } from './account-token.service';
import { toAccountTokenBody, toCreatedTokenBody, toSignedInBody } from './account.wire';

/** People: sign-up, sign-in, sign-out and the account's tokens (the MCP setup page). */
export const accountRoutes: RouteModule = (app, deps) => {
  // Bodies are checked by the services (one JSON Schema each), so REST, GraphQL and MCP answer the same 400s.
  app.post(
    '/api/auth/signup',
    {
      schema: accountContract.signUp,
      config: { public: true, rateLimit: { max: deps.config.limits.sessionCreatesPerHour, timeWindow: 3_600_000, keyGenerator: (req) => req.ip } },
    },
    async (request, reply) => reply.status(201).send(toSignedInBody(await signUp(await requestContext(request, deps), request.body))),
  );

  app.post('/api/auth/login', { schema: accountContract.signIn, config: { public: true } }, async (request) =>
    toSignedInBody(await signIn(await requestContext(request, deps), request.body)),
  );

  app.delete('/api/auth/session', { schema: accountContract.signOut }, async (request, reply) => {
    await signOut(await requestContext(request, deps));
    return reply.status(204).send();
  });

  app.post('/api/account/tokens', { schema: accountContract.createToken }, async (request, reply) => {
    const created = await createAccessToken(await requestContext(request, deps), request.body);
    return reply.status(201).send(toCreatedTokenBody(created));
  });

  app.get<{ Querystring: { limit?: string; offset?: string } }>('/api/account/tokens', { schema: accountContract.listTokens }, async (request) => {
    const page = pageFromQuery(request.query, deps.config.limits);
    const result = await listAccessTokens(await requestContext(request, deps), page);
    return { items: result.items.map(toAccountTokenBody), total: result.total, ...page };
  });

  app.delete<{ Params: { id: string } }>('/api/account/tokens/:id', { schema: accountContract.revokeToken }, async (request, reply) => {
    await revokeAccessToken(await requestContext(request, deps), request.params.id);
    return reply.status(204).send();
  });
};
