import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors';
import type { RouteModule } from '../platform/http/routes';
import { webContract } from './web.contract';

/**
 * The web console (web/, built by Vite into web/dist) served at `/`. Client routes (`/inbox`,
 * `/blueprints/x`, `/architectures/y`, ...) answer index.html so a reload or a shared link opens the page;
 * the API's own paths never do: an unknown `/api/...` path stays the JSON 404 of the error contract.
 */

/** Path prefixes that belong to the API, the protocol endpoints or other areas' pages, never to the console. */
const SERVER_PREFIXES = ['/api', '/graphql', '/mcp', '/healthz', '/metrics', '/docs', '/openapi.json', '/.well-known', '/oauth'];

/** Folders of web/dist and the console's client routes with sub-paths (`/blueprints/:slug`, `/teams/:id`, ...). */
const CLIENT_PREFIXES = ['assets', 'blueprints', 'architectures', 'teams', 'users'];

/** The console's one-segment pages (docs/web.md). Any other one-segment path is the page with status 404. */
const CLIENT_PAGES = new Set(['signin', 'registry', 'architectures', 'inbox', 'account', 'teams', 'import']);

/**
 * The console's Content-Security-Policy: scripts, data and sockets from this origin only (Vite's build has
 * no inline script), no plugins, no framing, no foreign form targets. Styles also allow inline ones:
 * Mantine writes its CSS variables into `<style>` elements at run time. `data:` images are the favicon
 * and Vite's inlined small assets.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function isServerPath(url: string): boolean {
  const pathname = url.split('?')[0]!;
  return SERVER_PREFIXES.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/** web/dist of the checkout: the nearest folder above this file that holds package.json (src/ in tests, dist/src/ when built). */
export function webDistDir(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'web', 'dist');
}

export const webRoutes: RouteModule = (app) => {
  const root = webDistDir();
  const built = existsSync(path.join(root, 'index.html'));

  if (built) {
    void app.register(fastifyStatic, {
      root,
      serve: false,
      // Vite names bundles by content hash: they never change; index.html always revalidates.
      cacheControl: false,
    });
  }

  // `status` 404: the console still loads and shows its own not-found page, while the status tells
  // crawlers and scripts the path names nothing.
  const sendIndex = (reply: FastifyReply, status = 200) => {
    if (!built) throw new AppError('NOT_FOUND', 'The web console is not built: run `npm run build:web` (npm start does it), then reload');
    return reply.code(status).header('cache-control', 'no-cache').sendFile('index.html');
  };

  const serve = (relative: string, reply: FastifyReply) => {
    // A path with an extension is a file (a bundle, an icon): served from web/dist or a 404, never the page.
    if (/\.[a-z0-9]+$/i.test(relative)) {
      const file = path.resolve(root, relative);
      if (!built || !file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) return reply.callNotFound();
      const immutable = relative.startsWith('assets/');
      return reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache').sendFile(path.relative(root, file));
    }
    return sendIndex(reply, relative.includes('/') || CLIENT_PAGES.has(relative) ? 200 : 404);
  };

  // Public: the page and its bundles hold no data; everything they show comes from the API with the person's token.
  // Only the console's own paths are routes here (never a catch-all `/*`): API paths keep the router's own
  // answers (a 400 for an over-long path parameter, the JSON 404 for an unknown path).
  const options = { config: { public: true, contentSecurityPolicy: CONSOLE_CSP } };
  app.get('/', { ...options, schema: webContract.index }, (_request, reply) => sendIndex(reply));
  app.get('/:page', { ...options, schema: webContract.page }, (request: FastifyRequest<{ Params: { page: string } }>, reply) =>
    isServerPath(request.url) ? reply.callNotFound() : serve(request.params.page, reply),
  );
  for (const prefix of CLIENT_PREFIXES)
    app.get(`/${prefix}/*`, { ...options, schema: webContract.asset }, (request: FastifyRequest<{ Params: { '*': string } }>, reply) =>
      serve(`${prefix}/${request.params['*']}`, reply),
    );
};
