import { randomUUID } from 'node:crypto';
import {
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { graphQLSchema } from '../../src/app';
import { addNode, createArchitecture, createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { mcpClient, toolBody } from '../helpers/mcp-client';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';

/**
 * The authorization matrix: ONE table (below) says who may call every REST route, GraphQL root field
 * (queries, mutations, subscriptions) and MCP tool. The test fails when the server has a route, field or
 * tool without a row, so nothing is added without deciding its access.
 *
 * Callers: anonymous; an agent session (a stranger); the owner's `read` and `write` account tokens; a
 * foreign signed-in user; the owner (sign-in token). Expectations: a status, `ok` (2xx), or `pass` (got
 * past authorization: neither 401 nor 403, e.g. a 404 for a made-up id or a 409 for a wrong step token).
 */
const callers = ['anonymous', 'agent', 'read', 'write', 'foreign', 'owner'] as const;
type Caller = (typeof callers)[number];
type Outcome = number | 'ok' | 'pass';
type Expect = Record<Caller, Outcome>;

/** Public: everyone, token or not. */
const PUBLIC: Expect = { anonymous: 'ok', agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of something public (or the caller's own list): a token is required. */
const READ: Expect = { anonymous: 401, agent: 'ok', read: 'ok', write: 'ok', foreign: 'ok', owner: 'ok' };
/** A read of the owner's private thing: 404 to those who may not see it. */
const PRIVATE: Expect = { anonymous: 401, agent: 404, read: 'ok', write: 'ok', foreign: 404, owner: 'ok' };
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

interface World {
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

interface RestRow {
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

const fresh = {
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
const matrix: { rest: RestRow[]; graphql: Record<string, Expect>; mcp: Record<string, Expect> } = {
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

  /** GraphQL root fields (queries, mutations, subscriptions). `ok` here: no UNAUTHENTICATED or FORBIDDEN error. */
  graphql: {
    // Public (docs/api.md, Authentication).
    architectures: PUBLIC,
    architecture: PUBLIC,
    createAgentSession: PUBLIC,
    signUp: PUBLIC,
    signIn: with_(PUBLIC, { anonymous: 'pass', agent: 'pass', read: 'pass', write: 'pass', foreign: 'pass', owner: 'pass' }),
    architectureChanged: PUBLIC,
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
    blueprintActivity: READ,
    operationUpdated: READ,
    broadcastReceived: READ,
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

// ---------------------------------------------------------------------------------------------------

const PASSWORD = 'correct horse battery';
let w: World;
const tokens = {} as Record<Caller, string | undefined>;
const sockets: WsClient[] = [];

beforeAll(async () => {
  const server = await startTestServer();
  const rest = server.rest;
  const owner = await rest.signUp(`owner-${randomUUID().slice(0, 8)}`, PASSWORD);
  const foreign = await rest.signUp(`foreign-${randomUUID().slice(0, 8)}`, PASSWORD);
  const pub = await createBlueprint(rest, owner.token, { name: 'Matrix public' });
  const priv = await createBlueprint(rest, owner.token, { name: 'Matrix private', visibility: 'private' });
  const pubFork = await fork(rest, owner.token, pub.id);
  const pubArch = await createArchitecture(rest, owner.token, { name: 'Matrix public map', visibility: 'public' });
  await addNode(rest, owner.token, pubArch.slug, { blueprint_id: pub.id });
  const privArch = await createArchitecture(rest, owner.token, { name: 'Matrix private map', visibility: 'private' });
  const team = await createTeam(rest, owner.token, [], 'Matrix team');
  const entry = (await rest.post(`/api/blueprints/${priv.id}/changelog`, { token: owner.token, body: { title: 'first', body: '' } })).body;
  const run = (await rest.get(`/api/blueprints/${priv.id}/start`, { token: owner.token })).body;
  const op = await fresh.operation({ server, owner } as World);
  w = { server, owner, foreign, pub, priv, pubFork, pubArch, privArch, team, entry, run, op };
  Object.assign(tokens, {
    anonymous: undefined,
    agent: await rest.agentToken('matrix agent'),
    read: await rest.accountToken(owner.token, 'read'),
    write: await rest.accountToken(owner.token, 'write'),
    foreign: foreign.token,
    owner: owner.token,
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await w?.server.close();
});

/** A token of the same kind as the caller's, for calls that revoke the token they present. */
async function freshToken(c: Caller): Promise<string | undefined> {
  const rest = w.server.rest;
  const login = async (u: SignedInUser) => (await rest.post('/api/auth/login', { body: { username: u.username, password: PASSWORD } })).body.token as string;
  switch (c) {
    case 'anonymous':
      return undefined;
    case 'agent':
      return rest.agentToken('fresh agent');
    case 'read':
    case 'write':
      return rest.accountToken(w.owner.token, c);
    case 'foreign':
      return login(w.foreign);
    case 'owner':
      return login(w.owner);
  }
}

function matches(outcome: Outcome, status: number): boolean {
  if (outcome === 'ok') return status >= 200 && status < 300;
  if (outcome === 'pass') return status !== 401 && status !== 403 && status < 500;
  return status === outcome;
}

describe('every route, root field and tool has a row', () => {
  it('REST: the routes the server registered are exactly the rows', () => {
    const registered = new Set(w.server.app.http.registeredRoutes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`));
    const rows = new Set(matrix.rest.map((r) => `${r.method} ${r.route}`));
    expect([...registered].filter((r) => !rows.has(r)).sort()).toEqual([]);
    expect([...rows].filter((r) => !registered.has(r)).sort()).toEqual([]);
  });

  it('GraphQL: every query, mutation and subscription root field has a row', async () => {
    const schema = await graphQLSchema();
    const fields = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((t) => Object.keys(t?.getFields() ?? {}));
    expect(fields.filter((f) => !(f in matrix.graphql)).sort()).toEqual([]);
    expect(
      Object.keys(matrix.graphql)
        .filter((f) => !fields.includes(f))
        .sort(),
    ).toEqual([]);
  });

  it('MCP: every tool the server lists has a row', async () => {
    const client = await mcpClient(w.server.url, tokens.owner!);
    const names = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    expect(names.filter((n) => !(n in matrix.mcp)).sort()).toEqual([]);
    expect(
      Object.keys(matrix.mcp)
        .filter((n) => !names.includes(n))
        .sort(),
    ).toEqual([]);
  });
});

describe('REST', () => {
  it.each(matrix.rest.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const actual = {} as Record<Caller, number>;
    const wanted = {} as Record<Caller, Outcome>;
    for (const c of callers) {
      const token = row.freshTokens ? await freshToken(c) : tokens[c];
      const res = await w.server.rest.request(row.method, await row.url(w, c), { token, body: await row.body?.(w, c), headers: row.headers });
      actual[c] = res.status;
      wanted[c] = matches(row.expect[c], res.status) ? res.status : row.expect[c];
    }
    expect(actual).toEqual(wanted);
  });
});

// GraphQL documents are built from the schema: required arguments get harmless values (unknown ids, so a
// call that passes authorization ends in NOT_FOUND or VALIDATION_FAILED, never in a change).
function sample(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sample(type.ofType);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type))
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((f) => isNonNullType(f.type))
        .map((f) => [f.name, sample(f.type)]),
    );
  switch (type.name) {
    case 'ID':
      return randomUUID();
    case 'Int':
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'String':
      return 'no-such-thing';
    case 'DateTimeISO':
      return new Date().toISOString();
    default:
      return {};
  }
}

function documentFor(
  kind: 'query' | 'mutation' | 'subscription',
  field: GraphQLField<unknown, unknown>,
): { query: string; variables: Record<string, unknown> } {
  const required = field.args.filter((a) => isNonNullType(a.type));
  const variables = Object.fromEntries(
    required.map((a) => [a.name, field.name === 'architectureChanged' && a.name === 'slug' ? w.pubArch.slug : sample(a.type)]),
  );
  const defs = required.length ? `(${required.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')})` : '';
  const args = required.length ? `(${required.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const named = getNamedType(field.type);
  const selection = isObjectType(named) || isAbstractType(named) ? ' { __typename }' : '';
  return { query: `${kind}${defs} { ${field.name}${args}${selection} }`, variables };
}

const codeFor = (outcome: Outcome) => (outcome === 401 ? 'UNAUTHENTICATED' : outcome === 403 ? 'FORBIDDEN' : 'allowed');
const authCode = (errors: Array<{ extensions?: { code?: string } }> | undefined) =>
  errors?.map((e) => e.extensions?.code).find((c) => c === 'UNAUTHENTICATED' || c === 'FORBIDDEN') ?? 'allowed';

describe('GraphQL root fields', () => {
  it.each(Object.keys(matrix.graphql))('%s', async (name) => {
    const schema = await graphQLSchema();
    const kind = schema.getQueryType()!.getFields()[name] ? 'query' : schema.getMutationType()!.getFields()[name] ? 'mutation' : 'subscription';
    const field = (kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType())!.getFields()[
      name
    ]!;
    const actual = {} as Record<Caller, string>;
    const wanted = {} as Record<Caller, string>;
    for (const c of callers) {
      const token = name === 'signOut' ? await freshToken(c) : tokens[c];
      const { query, variables } = documentFor(kind, field);
      if (kind === 'subscription') {
        const ws = connectWs(w.server.url, token);
        sockets.push(ws);
        const sub = ws.subscribe(query, variables);
        const first = await sub.next(400).catch(() => null); // nothing within 400 ms: subscribed and waiting
        actual[c] = first ? authCode(first.errors as never) : 'allowed';
        sub.dispose();
      } else {
        actual[c] = authCode((await w.server.gql.request(query, variables, token)).errors);
      }
      wanted[c] = codeFor(matrix.graphql[name]![c]);
    }
    expect(actual).toEqual(wanted);
  });

  it('hides private things from those who may not see them (null, as for a missing one)', async () => {
    for (const c of callers) {
      const res = await w.server.gql.request('query($id: ID!) { blueprint(id: $id) { id } }', { id: w.priv.id }, tokens[c]);
      if (c === 'anonymous') expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      else expect((res.data as { blueprint?: unknown } | null | undefined)?.blueprint ?? null).toEqual(PRIVATE[c] === 404 ? null : { id: w.priv.id });
    }
  });
});

function sampleJson(name: string, schema: Record<string, any>): unknown {
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      if (name.endsWith('_id') || name === 'token') return randomUUID();
      // A made-up name, so that a create (architecture_create) never makes the 'no-such-thing' a later row looks up.
      return name === 'name' ? `matrix ${randomUUID()}` : 'no-such-thing';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return {};
  }
}

describe('MCP tools', () => {
  it.each(Object.keys(matrix.mcp))('%s', async (name) => {
    const owner = await mcpClient(w.server.url, tokens.owner!);
    const tool = (await owner.listTools()).tools.find((t) => t.name === name)!;
    await owner.close();
    const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const args = Object.fromEntries((tool.inputSchema.required ?? []).map((p) => [p, sampleJson(p, props[p] ?? {})]));
    const actual = {} as Record<Caller, string>;
    const wanted = {} as Record<Caller, string>;
    for (const c of callers) {
      wanted[c] = codeFor(matrix.mcp[name]![c]);
      if (c === 'anonymous') {
        const res = await w.server.rest.post('/mcp', {
          headers: { accept: 'application/json, text/event-stream' },
          body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        });
        actual[c] = res.status === 401 ? 'UNAUTHENTICATED' : 'allowed';
        continue;
      }
      const client = await mcpClient(w.server.url, tokens[c]!);
      const result = await client.callTool({ name, arguments: args });
      await client.close();
      actual[c] = result.isError ? authCode([{ extensions: { code: toolBody(result).error?.code } }]) : 'allowed';
    }
    expect(actual).toEqual(wanted);
  });

  it('hides private blueprints from those who may not see them (NOT_FOUND)', async () => {
    for (const c of callers.filter((x) => x !== 'anonymous')) {
      const client = await mcpClient(w.server.url, tokens[c]!);
      const result = await client.callTool({ name: 'blueprint_get', arguments: { blueprint_id: w.priv.id } });
      await client.close();
      if (PRIVATE[c] === 404) expect(toolBody(result).error.code).toBe('NOT_FOUND');
      else expect(result.isError).toBeFalsy();
    }
  });
});
