import { randomUUID } from 'node:crypto';
import { createArchitecture, createTeam } from '../../fixtures/architectures';
import { createBlueprint } from '../../fixtures/blueprints';
import type { SignedInUser } from '../../helpers/rest';
import type { TestServer } from '../../helpers/server';

/**
 * The authorization matrix: ONE table (below) says who may call every REST route, GraphQL root field
 * (queries, mutations, subscriptions) and MCP tool. One test file per surface reads it (authorization-rest,
 * -graphql, -ws and -mcp .test.ts); each fails when the server has a route, field or tool of its surface
 * without a row, or a row without one, so nothing is added without deciding its access.
 *
 * Callers: anonymous; an agent session (a stranger); the owner's `read` and `write` account tokens; a
 * foreign signed-in user; the owner (sign-in token). Expectations: a status, `ok` (2xx), or `pass` (got
 * past authorization: neither 401 nor 403, e.g. a 404 for a made-up id or a 409 for a wrong step token).
 */
export const callers = ['anonymous', 'agent', 'read', 'write', 'foreign', 'owner'] as const;
export type Caller = (typeof callers)[number];
export type Outcome = number | 'ok' | 'pass';
export type Expect = Record<Caller, Outcome>;

/** Public: everyone, token or not. */
const PUBLIC: Expect = { anonymous: 'ok', agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of something public (or the caller's own list): a token is required. */
const READ: Expect = { anonymous: 401, agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of the owner's private thing: 404 to those who may not see it. */
export const PRIVATE: Expect = { anonymous: 401, agent: 404, read: 'ok', write: 'ok', foreign: 404, owner: 'ok' };
/** A write anyone signed in may make; `read` tokens may not. */
const WRITE: Expect = { anonymous: 401, agent: 'ok', read: 403, write: 'ok', foreign: 'ok', owner: 'ok' };
/** A write to the owner's private thing. */
const OWNER_WRITE: Expect = { anonymous: 401, agent: 404, read: 403, write: 'ok', foreign: 404, owner: 'ok' };
/** A write to the owner's public thing that only the owner may make. */
const OWNER_ONLY: Expect = { anonymous: 401, agent: 403, read: 403, write: 'ok', foreign: 403, owner: 'ok' };
/** The account area: people only. */
const ACCOUNT_WRITE: Expect = { anonymous: 401, agent: 403, read: 403, write: 'ok', foreign: 'ok', owner: 'ok' };
/** Token management: sign-in sessions only (docs/accounts.md); account tokens and agents get 403. */
const SIGN_IN_ONLY: Expect = { anonymous: 401, agent: 403, read: 403, write: 403, foreign: 'ok', owner: 'ok' };
/** The web console's routes (src/web): public; a missing file is a 404 to all, whether or not web/dist is built. */
const NOT_FOUND_TO_ALL: Expect = { anonymous: 404, agent: 404, read: 404, write: 404, foreign: 404, owner: 404 };
const with_ = (base: Expect, changes: Partial<Expect>): Expect => ({ ...base, ...changes });

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

/** THE table. */
export const matrix: { rest: RestRow[]; graphql: Record<string, Expect>; subscriptions: Record<string, Expect>; mcp: Record<string, Expect> } = {
  rest: [
    { method: 'GET', route: '/healthz', url: () => '/healthz', expect: PUBLIC },
    // The ecosystem's public pages (DESIGN 9: documentation and metrics need no token).
    { method: 'GET', route: '/metrics', url: () => '/metrics', expect: PUBLIC },
    { method: 'GET', route: '/openapi.json', url: () => '/openapi.json', expect: PUBLIC },
    {
      method: 'GET',
      route: '/docs',
      url: () => '/docs',
      expect: with_(PUBLIC, { anonymous: 'pass', agent: 'pass', read: 'pass', write: 'pass', foreign: 'pass', owner: 'pass' }),
    },
    { method: 'GET', route: '/docs/json', url: () => '/docs/json', expect: PUBLIC },
    { method: 'GET', route: '/docs/yaml', url: () => '/docs/yaml', expect: PUBLIC },
    { method: 'GET', route: '/docs/static/index.html', url: () => '/docs/static/index.html', expect: PUBLIC },
    { method: 'GET', route: '/docs/static/swagger-initializer.js', url: () => '/docs/static/swagger-initializer.js', expect: PUBLIC },
    { method: 'GET', route: '/docs/static/*', url: () => '/docs/static/swagger-ui.css', expect: PUBLIC },
    { method: 'GET', route: '/graphiql/:asset', url: () => '/graphiql/graphiql.min.css', expect: PUBLIC },
    // The web console's files and page (src/web): public; a missing file is a 404 whether or not web/dist is built.
    { method: 'GET', route: '/', url: () => '/', expect: { anonymous: 'pass', agent: 'pass', read: 'pass', write: 'pass', foreign: 'pass', owner: 'pass' } },
    { method: 'GET', route: '/:page', url: () => '/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'GET', route: '/assets/*', url: () => '/assets/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'GET', route: '/blueprints/*', url: () => '/blueprints/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'GET', route: '/architectures/*', url: () => '/architectures/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'GET', route: '/teams/*', url: () => '/teams/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'GET', route: '/users/*', url: () => '/users/missing-0000.js', expect: NOT_FOUND_TO_ALL },
    { method: 'POST', route: '/api/agent/sessions', url: () => '/api/agent/sessions', expect: PUBLIC },
    {
      method: 'POST',
      route: '/api/auth/signup',
      url: () => '/api/auth/signup',
      body: () => ({ username: `u-${randomUUID().slice(0, 8)}`, password: 'correct horse battery' }),
      expect: PUBLIC,
    },
    {
      method: 'POST',
      route: '/api/auth/login',
      url: () => '/api/auth/login',
      body: (w) => ({ username: w.foreign.username, password: 'correct horse battery' }),
      expect: PUBLIC,
    },
    {
      method: 'DELETE',
      route: '/api/auth/session',
      url: () => '/api/auth/session',
      freshTokens: true,
      expect: { anonymous: 401, agent: 400, read: 403, write: 400, foreign: 204, owner: 204 },
    },
    {
      method: 'DELETE',
      route: '/api/agent/sessions/current',
      url: () => '/api/agent/sessions/current',
      freshTokens: true,
      expect: { anonymous: 401, agent: 204, read: 403, write: 400, foreign: 400, owner: 400 },
    },
    { method: 'GET', route: '/api/account/tokens', url: () => '/api/account/tokens', expect: SIGN_IN_ONLY },
    { method: 'POST', route: '/api/account/tokens', url: () => '/api/account/tokens', body: () => ({ name: 'matrix', scope: 'read' }), expect: SIGN_IN_ONLY },
    {
      method: 'DELETE',
      route: '/api/account/tokens/:id',
      url: async (w) =>
        `/api/account/tokens/${(await w.server.rest.post('/api/account/tokens', { token: w.owner.token, body: { name: 'to revoke', scope: 'read' } })).body.id}`,
      expect: with_(SIGN_IN_ONLY, { foreign: 404 }),
    },
    {
      method: 'POST',
      route: '/api/account/claim',
      url: () => '/api/account/claim',
      body: async (w) => ({ agent_token: await w.server.rest.agentToken('to claim') }),
      expect: ACCOUNT_WRITE,
    },

    { method: 'GET', route: '/api/registry', url: () => '/api/registry', expect: READ },
    { method: 'GET', route: '/api/registry/trending', url: () => '/api/registry/trending', expect: READ },
    { method: 'GET', route: '/api/blueprints/:id', url: (w) => `/api/blueprints/${w.pub.id}`, expect: READ },
    { method: 'GET', route: '/api/blueprints/:id', url: (w) => `/api/blueprints/${w.priv.id}`, expect: PRIVATE },
    {
      method: 'PATCH',
      route: '/api/blueprints/:id',
      url: (w) => `/api/blueprints/${w.priv.id}`,
      body: () => ({ description: 'patched' }),
      expect: OWNER_WRITE,
    },
    { method: 'PATCH', route: '/api/blueprints/:id', url: (w) => `/api/blueprints/${w.pub.id}`, body: () => ({ description: 'patched' }), expect: OWNER_ONLY },
    { method: 'DELETE', route: '/api/blueprints/:id', url: async (w) => `/api/blueprints/${await fresh.privateBlueprint(w)}`, expect: OWNER_WRITE },
    { method: 'POST', route: '/api/blueprints/:id/fork', url: (w) => `/api/blueprints/${w.pub.id}/fork`, expect: WRITE },
    { method: 'POST', route: '/api/blueprints/:id/fork', url: (w) => `/api/blueprints/${w.priv.id}/fork`, expect: OWNER_WRITE },
    { method: 'POST', route: '/api/blueprints/:id/star', url: (w) => `/api/blueprints/${w.pub.id}/star`, expect: WRITE },
    { method: 'DELETE', route: '/api/blueprints/:id/star', url: (w) => `/api/blueprints/${w.priv.id}/star`, expect: OWNER_WRITE },
    { method: 'POST', route: '/api/blueprints/:id/subscription', url: (w) => `/api/blueprints/${w.pub.id}/subscription`, expect: WRITE },
    { method: 'DELETE', route: '/api/blueprints/:id/subscription', url: (w) => `/api/blueprints/${w.priv.id}/subscription`, expect: OWNER_WRITE },
    {
      method: 'POST',
      route: '/api/blueprints/:id/broadcasts',
      url: (w) => `/api/blueprints/${w.pub.id}/broadcasts`,
      body: () => ({ message: 'hi', type: 'notice', severity: 'info' }),
      expect: OWNER_ONLY,
    },
    { method: 'GET', route: '/api/blueprints/:id/changelog', url: (w) => `/api/blueprints/${w.pub.id}/changelog`, expect: PUBLIC },
    { method: 'GET', route: '/api/blueprints/:id/changelog', url: (w) => `/api/blueprints/${w.priv.id}/changelog`, expect: with_(PRIVATE, { anonymous: 404 }) },
    {
      method: 'POST',
      route: '/api/blueprints/:id/changelog',
      url: (w) => `/api/blueprints/${w.pub.id}/changelog`,
      body: () => ({ title: 'matrix', body: '' }),
      expect: OWNER_ONLY,
    },
    {
      method: 'PATCH',
      route: '/api/blueprints/:id/changelog/:entryId',
      url: (w) => `/api/blueprints/${w.priv.id}/changelog/${w.entry.id}`,
      body: () => ({ body: 'edited' }),
      expect: OWNER_WRITE,
    },
    {
      method: 'PUT',
      route: '/api/blueprints/:id/plan',
      url: (w) => `/api/blueprints/${w.pub.id}/plan`,
      // base_version 0 is always stale: the owner's call passes authorization and ends in 409, changing nothing.
      body: () => ({ modules: [], steps: [], configuration: {}, design_system: {}, base_version: 0 }),
      expect: with_(OWNER_ONLY, { write: 409, owner: 409 }),
    },
    // Proposals (docs/proposals.md): each call gets a fresh proposal from the owner's public fork to its public parent.
    {
      method: 'POST',
      route: '/api/blueprints/:id/proposals',
      url: (w) => `/api/blueprints/${w.pub.id}/proposals`,
      body: (w) => ({ source_blueprint_id: w.pubFork.id, title: 'matrix' }),
      expect: OWNER_ONLY,
    },
    { method: 'GET', route: '/api/blueprints/:id/proposals', url: (w) => `/api/blueprints/${w.pub.id}/proposals`, expect: READ },
    { method: 'GET', route: '/api/blueprints/:id/proposals/:number', url: (w) => fresh.proposal(w), expect: READ },
    {
      method: 'POST',
      route: '/api/blueprints/:id/proposals/:number/comments',
      url: async (w) => `${await fresh.proposal(w)}/comments`,
      body: () => ({ body: 'matrix' }),
      expect: WRITE,
    },
    { method: 'GET', route: '/api/blueprints/:id/proposals/:number/comments', url: async (w) => `${await fresh.proposal(w)}/comments`, expect: READ },
    { method: 'POST', route: '/api/blueprints/:id/proposals/:number/merge', url: async (w) => `${await fresh.proposal(w)}/merge`, expect: OWNER_ONLY },
    { method: 'POST', route: '/api/blueprints/:id/proposals/:number/close', url: async (w) => `${await fresh.proposal(w)}/close`, expect: OWNER_ONLY },
    { method: 'POST', route: '/api/blueprints/:id/proposals/:number/reopen', url: async (w) => `${await fresh.proposal(w)}/reopen`, expect: OWNER_ONLY },
    { method: 'GET', route: '/api/blueprints/:id/compare', url: (w) => `/api/blueprints/${w.pubFork.id}/compare`, expect: READ },
    { method: 'GET', route: '/api/blueprints/:id/export', url: (w) => `/api/blueprints/${w.priv.id}/export?format=agents-md`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/blueprints/import',
      url: () => '/api/blueprints/import',
      body: () => ({ format: 'json', files: [{ path: 'blueprint.json', content: '{}' }] }),
      expect: WRITE,
    },
    { method: 'GET', route: '/api/blueprints/:id/breed-suggestions', url: (w) => `/api/blueprints/${w.pub.id}/breed-suggestions`, expect: READ },
    { method: 'GET', route: '/api/blueprints/:id/forks', url: (w) => `/api/blueprints/${w.priv.id}/forks`, expect: PRIVATE },
    { method: 'GET', route: '/api/blueprints/:id/lineage', url: (w) => `/api/blueprints/${w.priv.id}/lineage`, expect: PRIVATE },
    { method: 'GET', route: '/api/blueprints/:id/versions', url: (w) => `/api/blueprints/${w.priv.id}/versions`, expect: PRIVATE },
    { method: 'GET', route: '/api/blueprints/:id/reviews', url: (w) => `/api/blueprints/${w.priv.id}/reviews`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/blueprints/:id/reviews',
      url: (w) => `/api/blueprints/${w.pub.id}/reviews`,
      body: () => ({ rating: 4, body: 'fine' }),
      expect: with_(WRITE, { write: 403, owner: 403 }),
    },
    {
      method: 'PATCH',
      route: '/api/blueprints/:id/reviews/mine',
      url: (w) => `/api/blueprints/${w.pub.id}/reviews/mine`,
      body: () => ({ rating: 5 }),
      expect: with_(WRITE, { write: 404, owner: 404 }),
    },
    {
      method: 'DELETE',
      route: '/api/blueprints/:id/reviews/mine',
      url: (w) => `/api/blueprints/${w.pub.id}/reviews/mine`,
      expect: with_(WRITE, { write: 404, owner: 404 }),
    },
    { method: 'GET', route: '/api/blueprints/:id/start', url: (w) => `/api/blueprints/${w.priv.id}/start`, expect: OWNER_WRITE },
    {
      method: 'GET',
      route: '/api/blueprints/:id/step/:n',
      url: (w) => `/api/blueprints/${w.priv.id}/step/1?token=bwx_wrong`,
      expect: with_(OWNER_WRITE, { write: 'pass', owner: 'pass' }),
    },
    { method: 'GET', route: '/api/blueprints/:id/executions', url: (w) => `/api/blueprints/${w.priv.id}/executions`, expect: PRIVATE },
    { method: 'GET', route: '/api/executions/:runId', url: (w) => `/api/executions/${w.run.run_id}`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/executions/:runId/report',
      url: (w) => `/api/executions/${w.run.run_id}/report`,
      body: () => ({ status: 'completed' }),
      expect: with_(OWNER_WRITE, { write: 'pass', owner: 'pass' }),
    },
    { method: 'GET', route: '/api/inbox', url: () => '/api/inbox', expect: READ },
    {
      method: 'POST',
      route: '/api/inbox/:deliveryId/read',
      url: () => '/api/inbox/999999999/read',
      expect: with_(WRITE, { agent: 404, write: 404, foreign: 404, owner: 404 }),
    },

    { method: 'POST', route: '/api/tools/operations', url: () => '/api/tools/operations', body: () => ({ tool_type: 'create' }), expect: WRITE },
    { method: 'GET', route: '/api/tools/operations/:operationId', url: (w) => `/api/tools/operations/${w.op}`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/tools/operations/:operationId/submit',
      url: (w) => `/api/tools/operations/${w.op}/submit`,
      body: () => ({ token: 'bwt_wrong', submission: {} }),
      expect: with_(OWNER_WRITE, { write: 409, owner: 409 }),
    },
    {
      method: 'POST',
      route: '/api/tools/operations/:operationId/cancel',
      url: async (w) => `/api/tools/operations/${await fresh.operation(w)}/cancel`,
      expect: OWNER_WRITE,
    },

    { method: 'GET', route: '/api/architectures', url: () => '/api/architectures', expect: PUBLIC },
    {
      method: 'POST',
      route: '/api/architectures',
      url: () => '/api/architectures',
      body: () => ({ name: 'matrix map', visibility: 'private' }),
      expect: WRITE,
    },
    { method: 'GET', route: '/api/architectures/:slug', url: (w) => `/api/architectures/${w.pubArch.slug}`, expect: PUBLIC },
    { method: 'GET', route: '/api/architectures/:slug', url: (w) => `/api/architectures/${w.privArch.slug}`, expect: with_(PRIVATE, { anonymous: 404 }) },
    { method: 'GET', route: '/api/architectures/:slug/export', url: (w) => `/api/architectures/${w.pubArch.slug}/export?format=mermaid`, expect: PUBLIC },
    {
      method: 'GET',
      route: '/api/architectures/:slug/export',
      url: (w) => `/api/architectures/${w.privArch.slug}/export`,
      expect: with_(PRIVATE, { anonymous: 404 }),
    },
    {
      method: 'PATCH',
      route: '/api/architectures/:slug',
      url: (w) => `/api/architectures/${w.privArch.slug}`,
      body: () => ({ description: 'patched' }),
      expect: OWNER_WRITE,
    },
    { method: 'DELETE', route: '/api/architectures/:slug', url: async (w) => `/api/architectures/${await fresh.privateArch(w)}`, expect: OWNER_WRITE },
    {
      method: 'POST',
      route: '/api/architectures/:slug/nodes',
      url: async (w) => `/api/architectures/${await fresh.privateArch(w)}/nodes`,
      body: (w) => ({ blueprint_id: w.pub.id }),
      expect: OWNER_WRITE,
    },
    {
      method: 'POST',
      route: '/api/architectures/:slug/edges',
      url: (w) => `/api/architectures/${w.privArch.slug}/edges`,
      body: () => ({}),
      expect: with_(OWNER_WRITE, { write: 400, owner: 400 }),
    },
    {
      method: 'PUT',
      route: '/api/architectures/:slug/layout',
      url: (w) => `/api/architectures/${w.privArch.slug}/layout`,
      body: () => [],
      expect: with_(OWNER_WRITE, { write: 'pass', owner: 'pass' }),
    },
    {
      method: 'POST',
      route: '/api/architectures/:slug/transfer',
      url: (w) => `/api/architectures/${w.privArch.slug}/transfer`,
      body: () => ({ team_id: randomUUID() }),
      expect: with_(OWNER_WRITE, { write: 404, owner: 404 }),
    },
    {
      method: 'DELETE',
      route: '/api/architectures/:slug/nodes/:nodeId',
      url: (w) => `/api/architectures/${w.privArch.slug}/nodes/${randomUUID()}`,
      expect: with_(OWNER_WRITE, { write: 404, owner: 404 }),
    },
    {
      method: 'DELETE',
      route: '/api/architectures/:slug/edges/:edgeId',
      url: (w) => `/api/architectures/${w.privArch.slug}/edges/${randomUUID()}`,
      expect: with_(OWNER_WRITE, { write: 404, owner: 404 }),
    },

    { method: 'POST', route: '/api/teams', url: () => '/api/teams', body: () => ({ name: 'matrix team' }), expect: WRITE },
    { method: 'GET', route: '/api/teams/:id', url: (w) => `/api/teams/${w.team.id}`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/teams/:id/members',
      url: (w) => `/api/teams/${w.team.id}/members`,
      body: () => ({ principal_id: randomUUID(), role: 'member' }),
      expect: with_(OWNER_WRITE, { write: 'pass', owner: 'pass' }),
    },
    {
      method: 'PATCH',
      route: '/api/teams/:id/members/:principalId',
      url: (w) => `/api/teams/${w.team.id}/members/${randomUUID()}`,
      body: () => ({ role: 'viewer' }),
      expect: with_(OWNER_WRITE, { write: 404, owner: 404 }),
    },
    {
      method: 'DELETE',
      route: '/api/teams/:id/members/:principalId',
      url: (w) => `/api/teams/${w.team.id}/members/${randomUUID()}`,
      expect: with_(OWNER_WRITE, { write: 404, owner: 404 }),
    },
    { method: 'GET', route: '/api/teams', url: () => '/api/teams', expect: READ },
    {
      method: 'PATCH',
      route: '/api/teams/:id',
      url: (w) => `/api/teams/${w.team.id}`,
      body: () => ({ conventions: 'matrix conventions' }),
      expect: OWNER_WRITE,
    },
    {
      method: 'DELETE',
      route: '/api/teams/:id',
      url: async (w) => `/api/teams/${(await createTeam(w.server.rest, w.owner.token, [], 'Matrix doomed')).id}`,
      expect: OWNER_WRITE,
    },
    { method: 'GET', route: '/api/teams/:id/blueprints', url: (w) => `/api/teams/${w.team.id}/blueprints`, expect: PRIVATE },
    { method: 'GET', route: '/api/teams/:id/architectures', url: (w) => `/api/teams/${w.team.id}/architectures`, expect: PRIVATE },
    { method: 'GET', route: '/api/teams/:id/audit', url: (w) => `/api/teams/${w.team.id}/audit`, expect: PRIVATE },
    { method: 'GET', route: '/api/teams/:id/analytics', url: (w) => `/api/teams/${w.team.id}/analytics`, expect: PRIVATE },
    {
      method: 'POST',
      route: '/api/blueprints/:id/transfer',
      url: async (w) => `/api/blueprints/${await fresh.privateBlueprint(w)}/transfer`,
      body: (w) => ({ team_id: w.team.id }),
      expect: OWNER_WRITE,
    },

    { method: 'GET', route: '/graphql', url: () => '/graphql?query=%7B__typename%7D', headers: { 'apollo-require-preflight': 'true' }, expect: PUBLIC },
    { method: 'POST', route: '/graphql', url: () => '/graphql', body: () => ({ query: '{ __typename }' }), expect: PUBLIC },
    {
      method: 'OPTIONS',
      route: '/graphql',
      url: () => '/graphql',
      expect: with_(PUBLIC, { anonymous: 'pass', agent: 'pass', read: 'pass', write: 'pass', foreign: 'pass', owner: 'pass' }),
    },
    {
      method: 'POST',
      route: '/mcp',
      url: () => '/mcp',
      headers: { accept: 'application/json, text/event-stream' },
      body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      expect: READ,
    },
    { method: 'GET', route: '/mcp', url: () => '/mcp', expect: { anonymous: 405, agent: 405, read: 405, write: 405, foreign: 405, owner: 405 } },
    { method: 'DELETE', route: '/mcp', url: () => '/mcp', expect: { anonymous: 405, agent: 405, read: 405, write: 405, foreign: 405, owner: 405 } },
  ],

  /** GraphQL query and mutation root fields, over HTTP. `ok` here: no UNAUTHENTICATED or FORBIDDEN error. */
  graphql: {
    // Public (docs/api.md, Authentication).
    architectures: PUBLIC,
    architecture: PUBLIC,
    createAgentSession: PUBLIC,
    signUp: PUBLIC,
    signIn: with_(PUBLIC, { anonymous: 'pass', agent: 'pass', read: 'pass', write: 'pass', foreign: 'pass', owner: 'pass' }),
    // Reads.
    viewer: READ,
    node: READ,
    blueprint: READ,
    registry: READ,
    trending: READ,
    inbox: READ,
    operation: READ,
    team: READ,
    user: READ,
    executionRun: READ,
    compareWithParent: READ,
    updateBlueprintPlan: WRITE,
    openProposal: WRITE,
    commentOnProposal: WRITE,
    mergeProposal: WRITE,
    closeProposal: WRITE,
    reopenProposal: WRITE,
    // Writes.
    signOut: with_(WRITE, { agent: 'pass', write: 'pass' }),
    createAccessToken: SIGN_IN_ONLY,
    revokeAccessToken: SIGN_IN_ONLY,
    claimAgentSession: with_(WRITE, { agent: 403 }),
    forkBlueprint: WRITE,
    importBlueprint: WRITE,
    updateBlueprint: WRITE,
    deleteBlueprint: WRITE,
    starBlueprint: WRITE,
    unstarBlueprint: WRITE,
    reviewBlueprint: WRITE,
    updateMyReview: WRITE,
    deleteMyReview: WRITE,
    startToolOperation: WRITE,
    submitToolStep: WRITE,
    cancelToolOperation: WRITE,
    startExecution: WRITE,
    executionStep: WRITE,
    reportExecution: WRITE,
    createArchitecture: WRITE,
    updateArchitecture: WRITE,
    deleteArchitecture: WRITE,
    addArchitectureNode: WRITE,
    addArchitectureEdge: WRITE,
    removeArchitectureNode: WRITE,
    removeArchitectureEdge: WRITE,
    updateArchitectureLayout: WRITE,
    transferArchitecture: WRITE,
    publishChangelogEntry: WRITE,
    updateChangelogEntry: WRITE,
    sendBroadcast: WRITE,
    subscribeToBlueprint: WRITE,
    unsubscribeFromBlueprint: WRITE,
    markInboxRead: WRITE,
    createTeam: WRITE,
    addTeamMember: WRITE,
    updateTeamMember: WRITE,
    removeTeamMember: WRITE,
    updateTeam: WRITE,
    deleteTeam: WRITE,
    transferBlueprint: WRITE,
  },

  /** GraphQL subscription root fields, over WebSocket (graphql-ws). `ok`: no UNAUTHENTICATED or FORBIDDEN error. */
  subscriptions: {
    architectureChanged: PUBLIC,
    blueprintActivity: READ,
    operationUpdated: READ,
    broadcastReceived: READ,
  },

  /** MCP tools. `ok` here: no UNAUTHENTICATED or FORBIDDEN error. */
  mcp: {
    blueprint_get: READ,
    blueprint_forks: READ,
    blueprint_lineage: READ,
    blueprint_breed_suggestions: READ,
    registry_search: READ,
    registry_trending: READ,
    tool_operation_status: READ,
    blueprint_fork: WRITE,
    tool_operation_start: WRITE,
    tool_operation_submit: WRITE,
    tool_operation_cancel: WRITE,
    blueprint_execute_start: WRITE,
    blueprint_execute_step: WRITE,
    execution_report: WRITE,
    // Arguments are made-up ids: what is checked is who gets past the token rules (read tools for any
    // token; write tools not for read tokens; the account's claim for people only).
    blueprint_compare: READ,
    blueprint_plan_update: WRITE,
    proposal_open: WRITE,
    proposal_list: READ,
    proposal_get: READ,
    proposal_comment: WRITE,
    proposal_comments: READ,
    proposal_merge: WRITE,
    proposal_close: WRITE,
    proposal_reopen: WRITE,
    blueprint_export: READ,
    blueprint_import: WRITE,
    execution_get: READ,
    execution_history: READ,
    version_list: READ,
    changelog_list: READ,
    inbox_list: READ,
    architecture_list: READ,
    architecture_get: READ,
    architecture_export: READ,
    team_get: READ,
    team_list: READ,
    team_blueprints: READ,
    team_architectures: READ,
    team_audit: READ,
    team_analytics: READ,
    review_list: READ,
    blueprint_star: WRITE,
    blueprint_unstar: WRITE,
    blueprint_update: WRITE,
    blueprint_delete: WRITE,
    blueprint_transfer: WRITE,
    changelog_publish: WRITE,
    changelog_update: WRITE,
    broadcast_send: WRITE,
    broadcast_subscribe: WRITE,
    broadcast_unsubscribe: WRITE,
    inbox_mark_read: WRITE,
    architecture_create: WRITE,
    architecture_add_node: WRITE,
    architecture_add_edge: WRITE,
    architecture_update_layout: WRITE,
    architecture_transfer: WRITE,
    architecture_remove_node: WRITE,
    architecture_remove_edge: WRITE,
    architecture_update: WRITE,
    architecture_delete: WRITE,
    team_create: WRITE,
    team_add_member: WRITE,
    team_update_member: WRITE,
    team_remove_member: WRITE,
    team_update: WRITE,
    team_delete: WRITE,
    review_create: WRITE,
    review_update: WRITE,
    review_delete: WRITE,
    account_claim: ACCOUNT_WRITE,
  },
};
