import express, { type RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../mcp/mcp.routes';
import { publicOrigin } from '../platform/public-url';
import type { AppDeps } from '../platform/request-context';
import type { RouteModule } from '../platform/routes';
import { OAUTH_SCOPES, WorkshopOAuthProvider, type ConsentForm } from './oauth.provider';

type OriginRequest = IncomingMessage & { bwOrigin?: string };

/** Paths the SDK's router and the consent form answer; every other path stays Fastify's. */
export const oauthPaths: ReadonlySet<string> = new Set([
  '/authorize',
  '/token',
  '/register',
  '/revoke',
  '/oauth/consent',
  '/.well-known/oauth-authorization-server',
  PROTECTED_RESOURCE_METADATA_PATH,
  `${PROTECTED_RESOURCE_METADATA_PATH}/mcp`,
]);

/** Distinct origins kept at once (without PUBLIC_URL, each Host seen gets its metadata); past it, start over. */
const ORIGINS_MAX = 32;

/**
 * The SDK's routers for one origin: authorization-server metadata, registration, authorize, token and
 * revocation (`mcpAuthRouter`), the protected-resource metadata of `/mcp` at both the path-specific and the
 * root well-known URL (the 401 challenge names the root one).
 */
function routerFor(origin: string, provider: WorkshopOAuthProvider): RequestHandler {
  const router = express.Router();
  const issuerUrl = new URL(origin);
  // The SDK's own per-IP limits, kept. Their limiters are made when an origin is first seen (inside a
  // request) and then reused, which express-rate-limit's "created in a request handler" check cannot tell.
  const rateLimit = { rateLimit: { validate: { creationStack: false } } };
  const resourceServerUrl = new URL('/mcp', origin);
  router.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl,
      scopesSupported: [...OAUTH_SCOPES],
      resourceName: 'Blueprint Workshop MCP',
      serviceDocumentationUrl: new URL('/docs', origin),
      authorizationOptions: rateLimit,
      tokenOptions: rateLimit,
      clientRegistrationOptions: rateLimit,
      revocationOptions: rateLimit,
    }),
  );
  const resourceMetadata: OAuthProtectedResourceMetadata = {
    resource: resourceServerUrl.href,
    authorization_servers: [issuerUrl.href],
    scopes_supported: [...OAUTH_SCOPES],
    resource_name: 'Blueprint Workshop MCP',
    resource_documentation: new URL('/docs', origin).href,
  };
  router.use(PROTECTED_RESOURCE_METADATA_PATH, metadataHandler(resourceMetadata));
  return router;
}

/** The Express app the OAuth endpoints run in (the SDK's auth router is Express middleware). */
function oauthApp(deps: AppDeps): express.Express {
  const provider = new WorkshopOAuthProvider(deps);
  const app = express();
  app.disable('x-powered-by');
  // The sign-in page must not be framed (clickjacking an Allow) nor leak the request in a Referer.
  app.use((_req, res, next) => {
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('content-security-policy', "frame-ancestors 'none'");
    res.setHeader('referrer-policy', 'no-referrer');
    next();
  });
  const routers = new Map<string, RequestHandler>();
  if (deps.config.publicUrl) {
    const origin = new URL(deps.config.publicUrl).origin;
    routers.set(origin, routerFor(origin, provider));
  }

  app.post('/oauth/consent', express.urlencoded({ extended: false, limit: '16kb' }), async (req, res, next) => {
    try {
      res.setHeader('cache-control', 'no-store');
      const outcome = await provider.decide((req.body ?? {}) as ConsentForm, req.socket.remoteAddress ?? 'unknown');
      if ('redirect' in outcome) return res.redirect(302, outcome.redirect);
      return res.status(outcome.status).type('html').send(outcome.page);
    } catch (err) {
      return next(err);
    }
  });
  app.use((req, res, next) => {
    const origin = (req as OriginRequest).bwOrigin!;
    let router = routers.get(origin);
    if (!router) {
      if (routers.size >= ORIGINS_MAX) routers.clear();
      router = routerFor(origin, provider);
      routers.set(origin, router);
    }
    router(req, res, next);
  });
  return app;
}

/**
 * The OAuth 2.1 authorization server for MCP clients (docs/mcp.md), built with the MCP SDK's
 * server auth support. Fastify hands the OAuth paths to it before parsing their bodies (they are form
 * encoded), after its own request id, access and rate-limit hooks.
 */
export const oauthRoutes: RouteModule = (app, deps) => {
  // An Express app is a plain Node request listener; `next` is called for what it leaves unanswered.
  const handler = oauthApp(deps) as unknown as (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0]!;
    if (!oauthPaths.has(path)) return done();
    (request.raw as OriginRequest).bwOrigin = publicOrigin(request, deps.config);
    reply.hijack();
    handler(request.raw, reply.raw, (err?: unknown) => {
      // Whatever the SDK's routers leave unanswered (an unknown method, an error) ends here, in the section 5 shape.
      if (err) request.log.error({ err }, 'oauth endpoint failed');
      const status = err ? 500 : 404;
      if (!reply.raw.headersSent) reply.raw.writeHead(status, { 'content-type': 'application/json' });
      reply.raw.end(
        JSON.stringify({ error: { code: err ? 'INTERNAL' : 'NOT_FOUND', message: err ? 'Internal server error' : `No route ${request.method} ${path}` } }),
      );
    });
  });
};
