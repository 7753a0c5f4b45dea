import type { FastifyInstance } from 'fastify';

/**
 * Browser-facing security headers on every answer, set on the raw response at `onRequest` so that answers
 * Fastify does not write itself (the OAuth pages, hijacked replies) carry them too:
 * - `X-Content-Type-Options: nosniff`: a JSON or text answer is never run as a script or page;
 * - `Referrer-Policy: no-referrer`: URLs (ids, codes in query strings) do not leak to other sites;
 * - no framing anywhere (clickjacking): `X-Frame-Options: DENY` for old browsers and CSP `frame-ancestors
 *   'none'`. A route may give a whole policy instead (`config.contentSecurityPolicy`, e.g. the console's),
 *   which must itself say `frame-ancestors 'none'`.
 * Pages with inline scripts (GraphiQL at /graphql, Swagger UI at /docs) get only the framing rule.
 */
export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = reply.raw;
    raw.setHeader('x-content-type-options', 'nosniff');
    raw.setHeader('referrer-policy', 'no-referrer');
    raw.setHeader('x-frame-options', 'DENY');
    raw.setHeader('content-security-policy', request.routeOptions.config?.contentSecurityPolicy ?? FRAME_ANCESTORS_NONE);
    done();
  });
}
