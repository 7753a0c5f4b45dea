import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './request-context';

/** A domain's REST routes: registered on the app with the shared dependencies. */
export type RouteModule = (app: FastifyInstance, deps: AppDeps) => void;

/** JSON Schema for `:id`-style path params: any non-empty string (ids and slugs are checked by services). */
export const idParam = (name: string) => ({
  type: 'object',
  required: [name],
  properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } },
});

/** Query strings with `limit`/`offset` are parsed by `pageFromQuery`, which owns the range rules. */
export const pageQuery = {
  type: 'object',
  properties: { limit: { type: 'string' }, offset: { type: 'string' } },
};
