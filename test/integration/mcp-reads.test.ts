import { addNode, createArchitecture, createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { McpTestClient } from '../helpers/mcp-test-client';
import type { AgentSession } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Every read tool answers exactly the REST body (one table, checked to cover every read-only tool in
 * tools/list), and a foreign principal never sees a private thing through any of them.
 */
let server: TestServer;
let author: AgentSession;
let forker: AgentSession;
let stranger: AgentSession;
const w: Record<string, any> = {};
const clients: McpTestClient[] = [];

async function mcp(token: string): Promise<McpTestClient> {
  const client = await McpTestClient.connect(server.url, token);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startTestServer();
  const rest = server.rest;
  [author, forker, stranger] = [await rest.agentSession('author'), await rest.agentSession('forker'), await rest.agentSession('stranger')];
  w.pub = await createBlueprint(rest, author.token, { name: 'Mcp Public Plan', tags: ['mcp-read'], description: 'read through both doors' });
  w.other = await createBlueprint(rest, author.token, {
    name: 'Mcp Other Plan',
    tags: ['mcp-read'],
    modules: [
      { key: 'api', name: 'API', kind: 'backend' },
      { key: 'queue', name: 'Queue', kind: 'infra' },
    ],
    steps: [{ key: 'q', module_key: 'queue' }],
  });
  w.secret = await createBlueprint(rest, author.token, { name: 'Mcp Secret Thing', visibility: 'private' });
  w.fork = await fork(rest, forker.token, w.pub.id);
  w.secretFork = await fork(rest, author.token, w.secret.id);
  await rest.post(`/api/blueprints/${w.pub.id}/star`, { token: forker.token });
  const op = await rest.post('/api/tools/operations', { token: author.token, body: { tool_type: 'create', params: {} } });
  w.operationId = op.body.operation_id;
  w.run = (await rest.get(`/api/blueprints/${w.pub.id}/start`, { token: author.token })).body;
  w.secretRun = (await rest.get(`/api/blueprints/${w.secret.id}/start`, { token: author.token })).body;
  for (const bp of [w.pub, w.secret])
    await rest.post(`/api/blueprints/${bp.id}/changelog`, { token: author.token, body: { title: `v2 of ${bp.name}`, body: 'changes' } });
  await rest.post(`/api/blueprints/${w.pub.id}/broadcasts`, { token: author.token, body: { message: 'heads up', type: 'notice', severity: 'info' } });
  w.arch = await createArchitecture(rest, author.token, { name: 'Mcp Map' });
  await addNode(rest, author.token, w.arch.slug, { blueprint_id: w.pub.id });
  await addNode(rest, author.token, w.arch.slug, { blueprint_id: w.fork.id });
  w.privateArch = await createArchitecture(rest, author.token, { name: 'Mcp Secret Map', visibility: 'private' });
  await addNode(rest, author.token, w.privateArch.slug, { blueprint_id: w.secret.id });
  w.team = await createTeam(rest, author.token, [[forker.id, 'member']], 'Mcp Team');
  await rest.post(`/api/blueprints/${w.other.id}/transfer`, { token: author.token, body: { team_id: w.team.id } });
  await rest.post(`/api/architectures/${w.arch.slug}/transfer`, { token: author.token, body: { team_id: w.team.id } });
  await rest.post(`/api/blueprints/${w.pub.id}/reviews`, { token: forker.token, body: { rating: 4, body: 'solid plan' } });
  const proposal = await rest.post(`/api/blueprints/${w.pub.id}/proposals`, {
    token: forker.token,
    body: { source_blueprint_id: w.fork.id, title: 'Upstream my fork' },
  });
  w.proposalNumber = proposal.body.number;
  await rest.post(`/api/blueprints/${w.pub.id}/proposals/${w.proposalNumber}/comments`, { token: author.token, body: { body: 'looks useful' } });
  await rest.post(`/api/blueprints/${w.secret.id}/reviews`, { token: (await rest.signUp()).token, body: { rating: 1, body: 'cannot see it' } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

type Row = { as: () => AgentSession; args: () => Record<string, unknown>; rest: () => string; text?: boolean };

/** tool -> the REST GET that must answer the same body, as the same caller. */
const reads: Record<string, Row> = {
  blueprint_get: { as: () => author, args: () => ({ blueprint_id: w.pub.slug }), rest: () => `/api/blueprints/${w.pub.slug}` },
  blueprint_forks: { as: () => author, args: () => ({ blueprint_id: w.pub.id, limit: 5 }), rest: () => `/api/blueprints/${w.pub.id}/forks?limit=5` },
  blueprint_lineage: { as: () => forker, args: () => ({ blueprint_id: w.fork.id }), rest: () => `/api/blueprints/${w.fork.id}/lineage` },
  blueprint_breed_suggestions: {
    as: () => author,
    args: () => ({ blueprint_id: w.pub.id, limit: 3 }),
    rest: () => `/api/blueprints/${w.pub.id}/breed-suggestions?limit=3`,
  },
  blueprint_compare: { as: () => forker, args: () => ({ blueprint_id: w.fork.id }), rest: () => `/api/blueprints/${w.fork.id}/compare` },
  registry_search: {
    as: () => author,
    args: () => ({ q: 'plan', tags: 'mcp-read', sort: 'stars', limit: 10, offset: 0 }),
    rest: () => '/api/registry?q=plan&tags=mcp-read&sort=stars&limit=10&offset=0',
  },
  registry_trending: { as: () => author, args: () => ({ limit: 10, window_days: 7 }), rest: () => '/api/registry/trending?limit=10&window_days=7' },
  tool_operation_status: { as: () => author, args: () => ({ operation_id: w.operationId }), rest: () => `/api/tools/operations/${w.operationId}` },
  execution_get: { as: () => author, args: () => ({ run_id: w.run.run_id }), rest: () => `/api/executions/${w.run.run_id}` },
  execution_history: { as: () => author, args: () => ({ blueprint_id: w.pub.id }), rest: () => `/api/blueprints/${w.pub.id}/executions` },
  version_list: { as: () => author, args: () => ({ blueprint_id: w.pub.id }), rest: () => `/api/blueprints/${w.pub.id}/versions` },
  changelog_list: { as: () => author, args: () => ({ blueprint_id: w.pub.id, limit: 1 }), rest: () => `/api/blueprints/${w.pub.id}/changelog?limit=1` },
  inbox_list: { as: () => forker, args: () => ({ unread: true }), rest: () => '/api/inbox?unread=true' },
  architecture_list: { as: () => author, args: () => ({ limit: 10 }), rest: () => '/api/architectures?limit=10' },
  architecture_get: { as: () => forker, args: () => ({ slug: w.arch.slug }), rest: () => `/api/architectures/${w.arch.slug}` },
  architecture_export: {
    as: () => author,
    args: () => ({ slug: w.arch.slug, format: 'mermaid' }),
    rest: () => `/api/architectures/${w.arch.slug}/export?format=mermaid`,
    text: true,
  },
  team_get: { as: () => forker, args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}` },
  team_list: { as: () => forker, args: () => ({}), rest: () => '/api/teams' },
  team_blueprints: { as: () => forker, args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/blueprints` },
  team_architectures: { as: () => forker, args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/architectures` },
  team_audit: { as: () => forker, args: () => ({ team_id: w.team.id, limit: 50 }), rest: () => `/api/teams/${w.team.id}/audit?limit=50` },
  team_analytics: { as: () => author, args: () => ({ team_id: w.team.id, window_days: 7 }), rest: () => `/api/teams/${w.team.id}/analytics?window_days=7` },
  review_list: { as: () => stranger, args: () => ({ blueprint_id: w.pub.id }), rest: () => `/api/blueprints/${w.pub.id}/reviews` },
  blueprint_export: {
    as: () => stranger,
    args: () => ({ blueprint_id: w.pub.id, format: 'agents-md' }),
    rest: () => `/api/blueprints/${w.pub.id}/export?format=agents-md`,
  },
  proposal_list: { as: () => stranger, args: () => ({ blueprint_id: w.pub.id, state: 'all' }), rest: () => `/api/blueprints/${w.pub.id}/proposals?state=all` },
  proposal_get: {
    as: () => author,
    args: () => ({ blueprint_id: w.pub.id, number: w.proposalNumber }),
    rest: () => `/api/blueprints/${w.pub.id}/proposals/${w.proposalNumber}`,
  },
  proposal_comments: {
    as: () => forker,
    args: () => ({ blueprint_id: w.pub.id, number: w.proposalNumber }),
    rest: () => `/api/blueprints/${w.pub.id}/proposals/${w.proposalNumber}/comments`,
  },
};

describe('MCP read tools answer the REST body', () => {
  it('the table covers every read-only tool in tools/list, and no write tool', async () => {
    const { tools } = await (await mcp(author.token)).client.listTools();
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(Object.keys(reads).sort()).toEqual(readOnly.sort());
  });

  it.each(Object.keys(reads))('%s answers what REST answers', async (tool) => {
    const row = reads[tool]!;
    const caller = row.as();
    const [answer, rest] = await Promise.all([(await mcp(caller.token)).call(tool, row.args()), server.rest.get(row.rest(), { token: caller.token })]);
    expect(rest.status).toBe(200);
    expect(answer.isError).toBe(false);
    if (row.text) {
      expect(answer.body.text).toBe(rest.body);
      expect(rest.headers.get('content-type')).toBe(answer.body.content_type);
    } else {
      expect(answer.body).toEqual(rest.body);
      expect(answer.structured).toEqual(rest.body);
    }
    // Not an empty coincidence: every row reads something real.
    expect(JSON.stringify(answer.body).length).toBeGreaterThan(60);
  });
});

describe('a foreign principal through MCP', () => {
  /** Reads of private things (or of someone else's operations, runs and teams): NOT_FOUND, as REST says. */
  const hidden: Record<string, { args: () => Record<string, unknown>; rest: () => string }> = {
    blueprint_get: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}` },
    blueprint_forks: { args: () => ({ blueprint_id: w.secret.slug }), rest: () => `/api/blueprints/${w.secret.slug}/forks` },
    blueprint_lineage: { args: () => ({ blueprint_id: w.secretFork.id }), rest: () => `/api/blueprints/${w.secretFork.id}/lineage` },
    blueprint_breed_suggestions: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}/breed-suggestions` },
    blueprint_compare: { args: () => ({ blueprint_id: w.secretFork.id }), rest: () => `/api/blueprints/${w.secretFork.id}/compare` },
    tool_operation_status: { args: () => ({ operation_id: w.operationId }), rest: () => `/api/tools/operations/${w.operationId}` },
    execution_get: { args: () => ({ run_id: w.secretRun.run_id }), rest: () => `/api/executions/${w.secretRun.run_id}` },
    execution_history: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}/executions` },
    version_list: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}/versions` },
    changelog_list: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}/changelog` },
    architecture_get: { args: () => ({ slug: w.privateArch.slug }), rest: () => `/api/architectures/${w.privateArch.slug}` },
    architecture_export: {
      args: () => ({ slug: w.privateArch.slug, format: 'json' }),
      rest: () => `/api/architectures/${w.privateArch.slug}/export?format=json`,
    },
    team_get: { args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}` },
    team_blueprints: { args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/blueprints` },
    team_architectures: { args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/architectures` },
    team_audit: { args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/audit` },
    team_analytics: { args: () => ({ team_id: w.team.id }), rest: () => `/api/teams/${w.team.id}/analytics` },
    review_list: { args: () => ({ blueprint_id: w.secret.id }), rest: () => `/api/blueprints/${w.secret.id}/reviews` },
  };

  it.each(Object.keys(hidden))('%s of a private thing is NOT_FOUND, the same error REST answers', async (tool) => {
    const row = hidden[tool]!;
    const [answer, rest] = await Promise.all([(await mcp(stranger.token)).call(tool, row.args()), server.rest.get(row.rest(), { token: stranger.token })]);
    expect(answer.isError).toBe(true);
    expect(answer.body.error.code).toBe('NOT_FOUND');
    expect(answer.body).toEqual(rest.body);
    expect(JSON.stringify(answer.body)).not.toContain('Mcp Secret');
  });

  it('finds no private blueprint or architecture in lists, and has an empty inbox', async () => {
    const client = await mcp(stranger.token);
    const answers = await Promise.all([
      client.ok('registry_search', { q: 'secret thing' }),
      client.ok('registry_search', {}),
      client.ok('registry_trending', {}),
      client.ok('architecture_list', {}),
      client.ok('blueprint_lineage', { blueprint_id: w.pub.id }),
      client.ok('architecture_get', { slug: w.arch.slug }),
      client.ok('inbox_list', {}),
      client.ok('team_list', {}),
    ]);
    const text = JSON.stringify(answers);
    for (const secret of [w.secret.id, w.secret.slug, w.secretFork.id, w.privateArch.slug, 'Mcp Secret']) expect(text).not.toContain(secret);
    expect(answers[0].total).toBe(0);
    expect(answers[6]).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
    expect(answers[7]).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
  });
});
