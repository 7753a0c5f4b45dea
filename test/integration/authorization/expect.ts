import { randomUUID } from 'node:crypto';
import { createArchitecture } from '../../fixtures/architectures';
import { createBlueprint } from '../../fixtures/blueprints';
import type { SignedInUser } from '../../helpers/rest';
import type { TestServer } from '../../helpers/server';

/**
 * The vocabulary of the authorization matrix (matrix.ts): the callers, what each may get, the shared
 * expectations, the world the rows run against, and fresh resources for destructive calls.
 */
export const callers = ['anonymous', 'agent', 'read', 'write', 'foreign', 'owner'] as const;
export type Caller = (typeof callers)[number];
export type Outcome = number | 'ok' | 'pass';
export type Expect = Record<Caller, Outcome>;

/** Public: everyone, token or not. */
export const PUBLIC: Expect = { anonymous: 'ok', agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of something public (or the caller's own list): a token is required. */
export const READ: Expect = { anonymous: 401, agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of the owner's private thing: 404 to those who may not see it. */
export const PRIVATE: Expect = { anonymous: 401, agent: 404, read: 'ok', write: 'ok', foreign: 404, owner: 'ok' };
/** A write anyone signed in may make; `read` tokens may not. */
export const WRITE: Expect = { anonymous: 401, agent: 'ok', read: 403, write: 'ok', foreign: 'ok', owner: 'ok' };
/** A write to the owner's private thing. */
export const OWNER_WRITE: Expect = { anonymous: 401, agent: 404, read: 403, write: 'ok', foreign: 404, owner: 'ok' };
/** A write to the owner's public thing that only the owner may make. */
export const OWNER_ONLY: Expect = { anonymous: 401, agent: 403, read: 403, write: 'ok', foreign: 403, owner: 'ok' };
/** The account area: people only. */
export const ACCOUNT_WRITE: Expect = { anonymous: 401, agent: 403, read: 403, write: 'ok', foreign: 'ok', owner: 'ok' };
/** Token management: sign-in sessions only (docs/accounts.md); account tokens and agents get 403. */
export const SIGN_IN_ONLY: Expect = { anonymous: 401, agent: 403, read: 403, write: 403, foreign: 'ok', owner: 'ok' };
/** The web console's routes (src/web): public; a missing file is a 404 to all, whether or not web/dist is built. */
export const NOT_FOUND_TO_ALL: Expect = { anonymous: 404, agent: 404, read: 404, write: 404, foreign: 404, owner: 404 };
export const with_ = (base: Expect, changes: Partial<Expect>): Expect => ({ ...base, ...changes });

export interface World {
  server: TestServer;
  owner: SignedInUser;
  foreign: SignedInUser;
  pub: any;
  priv: any;
  pubFork: any;
  pubArch: any;
  privArch: any;
  team: any;
  entry: any;
  run: any;
  op: any;
}

export interface RestRow {
  method: string;
  /** The route as registered (Fastify's pattern). */
  route: string;
  /** The URL to call (may build fresh resources for destructive calls). */
  url(w: World, c: Caller): string | Promise<string>;
  body?(w: World, c: Caller): unknown;
  headers?: Record<string, string>;
  /** Fresh tokens of the same kinds (for calls that revoke the token they present). */
  freshTokens?: boolean;
  expect: Expect;
}

export const fresh = {
  privateBlueprint: async (w: World) =>
    (await createBlueprint(w.server.rest, w.owner.token, { name: `fresh ${randomUUID().slice(0, 6)}`, visibility: 'private' })).id as string,
  privateArch: async (w: World) => (await createArchitecture(w.server.rest, w.owner.token, { name: `fresh map`, visibility: 'private' })).slug as string,
  proposal: async (w: World) => {
    const res = await w.server.rest.post(`/api/blueprints/${w.pub.id}/proposals`, {
      token: w.owner.token,
      body: { source_blueprint_id: w.pubFork.id, title: 'matrix' },
    });
    return `/api/blueprints/${w.pub.id}/proposals/${res.body.number as number}`;
  },
  operation: async (w: World) =>
    (await w.server.rest.post('/api/tools/operations', { token: w.owner.token, body: { tool_type: 'create' } })).body.operation_id as string,
};
