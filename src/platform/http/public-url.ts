import type { FastifyRequest } from 'fastify';
import type { Config } from '../config';

/**
 * The origin a client reached the service at: `PUBLIC_URL` when configured (behind a proxy, in
 * production), else the request's own scheme and `Host`. OAuth metadata and MCP challenges name URLs under it.
 */
export function publicOrigin(request: FastifyRequest, config: Config): string {
  if (config.publicUrl) return new URL(config.publicUrl).origin;
  return `${request.protocol}://${request.host}`;
}
