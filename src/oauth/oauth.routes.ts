import express, { type RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../mcp/mcp.routes';
import type { FastifyRequest } from 'fastify';
import type { Config, Limits } from '../platform/config';
import { AppError, errorBody, publicError, validationFailed } from '../platform/errors';
import { rateLimited } from '../platform/graphql/graphql-guards';
import { publicOrigin } from '../platform/http/public-url';
import { callerKey } from '../platform/http/rate-limit';
import type { AppDeps } from '../platform/http/request-context';
import type { RouteModule } from '../platform/http/routes';
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

/** The largest client registration body (RFC 7591 metadata is a few hundred bytes). */
const REGISTRATION_BYTES_MAX = 16 * 1024;

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
  // The SDK's own in-memory limiters are off: each origin's router had its own, so another Host started
  // afresh. The OAuth paths count in the service's shared buckets instead (see `oauthRoutes`).
  const rateLimit = { rateLimit: false as const };
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
  // No framing, no Referer, nosniff: set on the raw response by the platform's security headers
  // (onRequest, before this app runs), like every other answer's.
  // Client metadata is small; the SDK's parser would take 100 KB. Parsed here first (the SDK then skips it).
  app.use('/register', express.json({ limit: REGISTRATION_BYTES_MAX }));
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
  const { limits } = deps.config;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (!oauthPaths.has(path)) return;
    const origin = oauthOrigin(request, deps.config);
    if (origin === null)
      return reply.status(400).send(errorBody(validationFailed('Unknown Host: without PUBLIC_URL the OAuth endpoints answer only at localhost or 127.0.0.1')));
    // The same buckets as every other request (these paths are no Fastify routes, so the global limiter
    // does not see them), plus registrations per IP per hour, shared by every Host and instance.
    const charged = await chargeOAuth(deps, request.ip, request.method === 'POST' && path === '/register', limits);
    if (charged)
      return reply
        .status(429)
        .header('retry-after', String(charged.details?.retry_after_seconds ?? 60))
        .send(errorBody(charged));
    (request.raw as OriginRequest).bwOrigin = origin;
    reply.hijack();
    handler(request.raw, reply.raw, (err?: unknown) => {
      // Whatever the SDK's routers leave unanswered ends here, in the section 5 shape: a body the parsers
      // refused (malformed, too large, wrong charset) is the client's error, anything else a masked 500.
      const clientError = httpClientError(err);
      const error = !err
        ? new AppError('NOT_FOUND', `No route ${request.method} ${path}`)
        : (clientError?.error ??
          publicError(err, request.id, deps.config.database.retryAfterSeconds, (cause) =>
            request.log.error({ err: cause, requestId: request.id }, 'oauth endpoint failed'),
          ));
      const answer = { status: clientError?.status ?? error.status, body: errorBody(error) };
      if (!reply.raw.headersSent) reply.raw.writeHead(answer.status, { 'content-type': 'application/json', connection: 'close' });
      reply.raw.end(JSON.stringify(answer.body));
    });
  });
};

/** A body-parser refusal (status 4xx on the error) as the section 5 error it is, or null. */
function httpClientError(err: unknown): { status: number; error: AppError } | null {
  const status = (err as { status?: unknown; statusCode?: unknown } | undefined)?.status ?? (err as { statusCode?: unknown } | undefined)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return { status, error: new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large for this endpoint') };
  return { status: 400, error: validationFailed('The request body is malformed') };
}

/**
 * The origin the OAuth endpoints name (issuer, resource): `PUBLIC_URL` whatever the Host (a request for
 * another Host is mapped to it), else the request's own origin when its Host is a loopback name with a
 * valid port (the SDK accepts plain http only there). Any other Host without PUBLIC_URL: null (refused).
 */
function oauthOrigin(request: FastifyRequest, config: Config): string | null {
  if (config.publicUrl) return publicOrigin(request, config);
  try {
    const url = new URL(`http://${request.host}`);
    if (!LOOPBACK.has(url.hostname) || url.username || url.password || `${url.host}` !== request.host.toLowerCase()) return null;
    return `${request.protocol}://${url.host}`;
  } catch {
    return null;
  }
}
const LOOPBACK = new Set(['localhost', '127.0.0.1']); // where the SDK accepts an http issuer

/** Counts one OAuth request in the caller's general bucket and, for a registration, the per-IP hourly one. */
async function chargeOAuth(deps: AppDeps, ip: string, registration: boolean, limits: Limits): Promise<AppError | null> {
  try {
    const hit = await deps.limiter.hit(callerKey(null, ip), 60_000);
    if (hit.count > limits.rateLimitPerMinute) return rateLimited(hit.ttlMs);
    if (registration) {
      const reg = await deps.limiter.hit(`oauth-register:ip:${ip}`, 3_600_000);
      if (reg.count > limits.sessionCreatesPerHour) return rateLimited(reg.ttlMs);
    }
  } catch {
    return null; // a failing limiter store lets requests through, as everywhere (docs/limits.md)
  }
  return null;
}
