import { AddArchitectureNodeDocument } from '../generated/graphql';
import { createBlueprint, createSubmissions } from '../fixtures/blueprints';
import { createArchitecture, createTeam } from '../fixtures/architectures';
import { startRun } from '../fixtures/executions';
import type { RestResponse } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * With a pool of only 2 connections, every write route is hit 20 at a time (many on ONE
 * architecture or blueprint, so the requests queue on its row lock) while `/healthz` is polled. A request
 * that reads on a second pooled connection while its transaction holds one would starve the pool; the
 * server runs with `strictTransactions`, so such a read fails the request (a 500) instead of hanging.
 * Every round must end with no 5xx and at least one success, and `/healthz` must answer 200 within 1 s
 * every time it is asked, throughout.
 */
jest.setTimeout(180_000);

const CONCURRENCY = 20;
const HEALTHZ_DEADLINE_MS = 1_000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ database: { poolMax: 2 } });
});

afterAll(async () => {
  await server?.close();
});

/** Polls `/healthz` every 50 ms until stopped; collects every answer that was not a 200 within the deadline. */
function watchHealth(url: string): { stop(): Promise<{ probes: number; failures: string[] }> } {
  const failures: string[] = [];
  let probes = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      probes += 1;
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTHZ_DEADLINE_MS) });
        if (res.status !== 200) failures.push(`status ${res.status}`);
        await res.text();
      } catch (err) {
        failures.push(`no answer within ${HEALTHZ_DEADLINE_MS} ms (${(err as Error).name})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { probes, failures };
    },
  };
}

/**
 * Every route that can write, read from the server's own route table (`printRoutes`), as "METHOD /path":
 * a write route added later without a round here fails the test.
 */
function writeRoutes(printed: (method: string) => string): string[] {
  const routes: string[] = [];
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const stack: string[] = [];
    for (const line of printed(method).split('\n')) {
      const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
      if (!match) continue;
      const depth = match[1]!.length / 4;
      stack.length = depth;
      stack.push(match[2]!);
      if (match[3]?.split(', ').includes(method)) routes.push(`${method} ${stack.join('')}`);
    }
  }
  return routes;
}

type Round = [name: string, send: (i: number) => Promise<RestResponse | { status: number; body: unknown }>];

test('20 concurrent requests on every write route, pool of 2: no 5xx, /healthz always answers', async () => {
  const { rest, gql } = server;
  const owner = await rest.agentSession('owner');
  const member = await rest.agentSession('member');
  const team = await createTeam(rest, owner.token, [[member.id, 'member']], 'Starved team');
  const bp = await createBlueprint(rest, owner.token, { name: 'Hot blueprint' });
  const arch = await createArchitecture(rest, owner.token, { name: 'Hot architecture' });
  expect((await rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner.token, body: { team_id: team.id } })).status).toBe(200);

  // State the rounds below build on, filled in as they run.
  const sessions: Array<{ token: string; id: string }> = [];
  const forks: string[] = [];
  const proposals: number[] = [];
  const nodes: string[] = [];
  const edges: string[] = [];
  let operation: any;
  let changelogId = '';
  let deliveryId = '';
  let run: any;
  const users: Array<{ id: string; username: string; token: string }> = [];
  const logins: string[] = [];
  const accountTokens: Array<{ owner: string; id: string }> = [];

  const rounds: Round[] = [
    [
      'POST /api/agent/sessions',
      async (i) => {
        const res = await rest.post('/api/agent/sessions', { body: { name: `s${i}` } });
        if (res.status === 201) sessions.push({ token: res.body.token, id: res.body.session_id });
        return res;
      },
    ],
    ['POST /api/teams', (i) => rest.post('/api/teams', { token: owner.token, body: { name: `Team ${i}` } })],
    [
      'POST /api/teams/:id/members',
      (i) => rest.post(`/api/teams/${team.id}/members`, { token: owner.token, body: { principal_id: sessions[i]!.id, role: 'viewer' } }),
    ],
    [
      'PATCH /api/teams/:id/members/:principalId',
      (i) => rest.patch(`/api/teams/${team.id}/members/${sessions[i]!.id}`, { token: owner.token, body: { role: 'member' } }),
    ],
    ['DELETE /api/teams/:id/members/:principalId', (i) => rest.delete(`/api/teams/${team.id}/members/${sessions[i]!.id}`, { token: owner.token })],
    [
      'POST /api/blueprints/:id/fork',
      async () => {
        const res = await rest.post(`/api/blueprints/${bp.id}/fork`, { token: member.token });
        if (res.status === 201) forks.push(res.body.id);
        return res;
      },
    ],
    // Proposals from the member's forks up to the owner's blueprint, then the owner's direct plan edits.
    [
      'POST /api/blueprints/:id/proposals',
      async (i) => {
        const res = await rest.post(`/api/blueprints/${bp.id}/proposals`, {
          token: member.token,
          body: { source_blueprint_id: forks[i], title: `proposal ${i}` },
        });
        if (res.status === 201) proposals.push(res.body.number);
        return res;
      },
    ],
    [
      'POST /api/blueprints/:id/proposals/:number/comments',
      (i) =>
        rest.post(`/api/blueprints/${bp.id}/proposals/${proposals[i % proposals.length]}/comments`, { token: member.token, body: { body: `comment ${i}` } }),
    ],
    [
      'POST /api/blueprints/:id/proposals/:number/close',
      (i) => rest.post(`/api/blueprints/${bp.id}/proposals/${proposals[i % proposals.length]}/close`, { token: member.token }),
    ],
    [
      'POST /api/blueprints/:id/proposals/:number/reopen',
      (i) => rest.post(`/api/blueprints/${bp.id}/proposals/${proposals[i % proposals.length]}/reopen`, { token: member.token }),
    ],
    [
      'POST /api/blueprints/:id/proposals/:number/merge',
      (i) => rest.post(`/api/blueprints/${bp.id}/proposals/${proposals[i % proposals.length]}/merge`, { token: owner.token, body: {} }),
    ],
    [
      'PUT /api/blueprints/:id/plan',
      async (i) => {
        const current = (await rest.get(`/api/blueprints/${bp.id}`, { token: owner.token })).body;
        const steps = current.steps.map((step: { acceptance: string[] }, n: number) =>
          n === 0 ? { ...step, acceptance: [...step.acceptance, `edit ${i}`] } : step,
        );
        return rest.put(`/api/blueprints/${bp.id}/plan`, {
          token: owner.token,
          body: { modules: current.modules, steps, configuration: current.configuration, design_system: current.design_system, base_version: current.version },
        });
      },
    ],
    [
      'POST /api/blueprints/import',
      async (i) => {
        const exported = (await rest.get(`/api/blueprints/${bp.id}/export?format=json`, { token: member.token })).body;
        return rest.post('/api/blueprints/import', { token: member.token, body: { format: 'json', files: exported.files, name: `Imported ${i}` } });
      },
    ],
    ['POST /api/blueprints/:id/star', () => rest.post(`/api/blueprints/${bp.id}/star`, { token: member.token })],
    ['DELETE /api/blueprints/:id/star', () => rest.delete(`/api/blueprints/${bp.id}/star`, { token: member.token })],
    ['POST /api/blueprints/:id/subscription', () => rest.post(`/api/blueprints/${bp.id}/subscription`, { token: member.token })],
    [
      'POST /api/blueprints/:id/broadcasts',
      (i) => rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner.token, body: { message: `notice ${i}`, type: 'notice', severity: 'info' } }),
    ],
    [
      'POST /api/inbox/:deliveryId/read',
      async () => {
        if (!deliveryId) deliveryId = (await rest.get('/api/inbox', { token: member.token })).body.items[0].id;
        return rest.post(`/api/inbox/${deliveryId}/read`, { token: member.token });
      },
    ],
    ['DELETE /api/blueprints/:id/subscription', () => rest.delete(`/api/blueprints/${bp.id}/subscription`, { token: member.token })],
    [
      'POST /api/blueprints/:id/changelog',
      async (i) => {
        const res = await rest.post(`/api/blueprints/${bp.id}/changelog`, { token: owner.token, body: { title: `entry ${i}`, body: 'text' } });
        if (res.status === 201) changelogId ||= res.body.id;
        return res;
      },
    ],
    [
      'PATCH /api/blueprints/:id/changelog/:entryId',
      (i) => rest.patch(`/api/blueprints/${bp.id}/changelog/${changelogId}`, { token: owner.token, body: { title: `edited ${i}` } }),
    ],
    ['POST /api/architectures', (i) => rest.post('/api/architectures', { token: member.token, body: { name: `Arch ${i % 3}`, visibility: 'private' } })],
    [
      'POST /api/architectures/:slug/nodes',
      async (i) => {
        const res = await rest.post(`/api/architectures/${arch.slug}/nodes`, { token: member.token, body: { blueprint_id: forks[i] } });
        if (res.status === 201) nodes.push(res.body.id);
        return res;
      },
    ],
    [
      'POST /api/architectures/:slug/edges',
      async (i) => {
        const res = await rest.post(`/api/architectures/${arch.slug}/edges`, {
          token: member.token,
          body: {
            source_node_id: nodes[0],
            target_node_id: nodes[1 + (i % (nodes.length - 1))],
            edge_type: ['api_call', 'event', 'shared_db', 'auth', 'custom'][i % 5],
          },
        });
        if (res.status === 201) edges.push(res.body.id);
        return res;
      },
    ],
    [
      'PUT /api/architectures/:slug/layout',
      (i) =>
        rest.put(`/api/architectures/${arch.slug}/layout`, {
          token: member.token,
          body: nodes.map((nodeId, n) => ({ nodeId, position: { x: i * 10, y: n * 10 } })),
        }),
    ],
    ['POST /api/architectures/:slug/transfer', () => rest.post(`/api/architectures/${arch.slug}/transfer`, { token: owner.token, body: { team_id: team.id } })],
    [
      'POST /mcp (blueprint_fork)',
      async (i) => {
        const res = await rest.post('/mcp', {
          token: member.token,
          headers: { accept: 'application/json, text/event-stream' },
          body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'blueprint_fork', arguments: { blueprint_id: bp.id } } },
        });
        const failed = res.body?.result?.isError === true || res.body?.error !== undefined;
        return { status: res.status >= 300 ? res.status : failed ? 409 : 200, body: res.body };
      },
    ],
    [
      'POST /graphql (addArchitectureNode)',
      async () => {
        const res = await gql.request(AddArchitectureNodeDocument, { slug: arch.slug, input: { blueprintId: bp.id } }, member.token);
        const code = res.errors?.[0]?.extensions?.code;
        return { status: res.status >= 500 || code === 'INTERNAL' ? 500 : code ? 409 : 200, body: res };
      },
    ],
    [
      'DELETE /api/architectures/:slug/edges/:edgeId',
      (i) => rest.delete(`/api/architectures/${arch.slug}/edges/${edges[i % edges.length]}`, { token: member.token }),
    ],
    [
      'DELETE /api/architectures/:slug/nodes/:nodeId',
      (i) => rest.delete(`/api/architectures/${arch.slug}/nodes/${nodes[i % nodes.length]}`, { token: member.token }),
    ],
    [
      'POST /api/tools/operations',
      async () => {
        const res = await rest.post('/api/tools/operations', { token: member.token, body: { tool_type: 'create', params: {} } });
        if (res.status === 201) operation ??= res.body;
        return res;
      },
    ],
    [
      'POST /api/tools/operations/:operationId/submit',
      () =>
        rest.post(`/api/tools/operations/${operation.operation_id}/submit`, {
          token: member.token,
          body: { token: operation.token, submission: createSubmissions()[0] },
        }),
    ],
    ['POST /api/tools/operations/:operationId/cancel', () => rest.post(`/api/tools/operations/${operation.operation_id}/cancel`, { token: member.token })],
    [
      'GET /api/blueprints/:id/start (starts a run)',
      async () => {
        const res = await rest.get(`/api/blueprints/${bp.id}/start`, { token: member.token });
        return res;
      },
    ],
    [
      'GET /api/blueprints/:id/step/:n (advances a run)',
      async () => {
        run ??= await startRun(rest, member.token, bp.id);
        return rest.get(`/api/blueprints/${bp.id}/step/1?token=${encodeURIComponent(run.next_token)}`, { token: member.token });
      },
    ],
    [
      'POST /api/executions/:runId/report',
      (i) => rest.post(`/api/executions/${run.run_id}/report`, { token: member.token, body: { status: i % 2 ? 'completed' : 'failed', notes: 'n' } }),
    ],
    // People: accounts, account tokens, claims, reviews and lifecycle.
    [
      'POST /api/auth/signup',
      async (i) => {
        const res = await rest.post('/api/auth/signup', { body: { username: `starved-${i}`, password: 'correct horse battery staple' } });
        if (res.status === 201) users.push({ id: res.body.user_id, username: res.body.username, token: res.body.token });
        return res;
      },
    ],
    [
      'POST /api/auth/login',
      async (i) => {
        const res = await rest.post('/api/auth/login', { body: { username: users[i % users.length]!.username, password: 'correct horse battery staple' } });
        if (res.status === 200) logins.push(res.body.token);
        return res;
      },
    ],
    [
      'POST /api/account/tokens',
      async (i) => {
        const user = users[i % users.length]!;
        const res = await rest.post('/api/account/tokens', { token: user.token, body: { name: `starved ${i}`, scope: 'write' } });
        if (res.status === 201) accountTokens.push({ owner: user.token, id: res.body.id });
        return res;
      },
    ],
    [
      'DELETE /api/account/tokens/:id',
      (i) => {
        const t = accountTokens[i % accountTokens.length]!;
        return rest.delete(`/api/account/tokens/${t.id}`, { token: t.owner });
      },
    ],
    [
      'POST /api/account/claim',
      async (i) => {
        const agent = await rest.agentSession(`claimed ${i}`);
        return rest.post('/api/account/claim', { token: users[i % users.length]!.token, body: { agent_token: agent.token } });
      },
    ],
    [
      'POST /api/blueprints/:id/reviews',
      (i) => rest.post(`/api/blueprints/${bp.id}/reviews`, { token: users[i % users.length]!.token, body: { rating: 1 + (i % 5), body: `review ${i}` } }),
    ],
    [
      'PATCH /api/blueprints/:id/reviews/mine',
      (i) => rest.patch(`/api/blueprints/${bp.id}/reviews/mine`, { token: users[i % users.length]!.token, body: { rating: 5 } }),
    ],
    ['DELETE /api/blueprints/:id/reviews/mine', (i) => rest.delete(`/api/blueprints/${bp.id}/reviews/mine`, { token: users[i % users.length]!.token })],
    ['PATCH /api/blueprints/:id', (i) => rest.patch(`/api/blueprints/${bp.id}`, { token: owner.token, body: { description: `edited ${i}` } })],
    ['PATCH /api/architectures/:slug', (i) => rest.patch(`/api/architectures/${arch.slug}`, { token: member.token, body: { description: `edited ${i}` } })],
    [
      'DELETE /api/architectures/:slug',
      async (i) => {
        const doomed = await createArchitecture(rest, owner.token, { name: `Doomed architecture ${i}` });
        return rest.delete(`/api/architectures/${doomed.slug}`, { token: owner.token });
      },
    ],
    // Teams: conventions, a blueprint moved in, and teams that hold nothing deleted.
    ['PATCH /api/teams/:id', (i) => rest.patch(`/api/teams/${team.id}`, { token: owner.token, body: { conventions: `conventions ${i}` } })],
    ['POST /api/blueprints/:id/transfer', () => rest.post(`/api/blueprints/${bp.id}/transfer`, { token: owner.token, body: { team_id: team.id } })],
    [
      'DELETE /api/teams/:id',
      async (i) => {
        const doomed = await createTeam(rest, owner.token, [], `Doomed team ${i}`);
        return rest.delete(`/api/teams/${doomed.id}`, { token: owner.token });
      },
    ],
    // The forks go last: deleting them also takes their nodes out of the architecture.
    ['DELETE /api/blueprints/:id', (i) => rest.delete(`/api/blueprints/${forks[i]}`, { token: member.token })],
    ['DELETE /api/auth/session', (i) => rest.delete('/api/auth/session', { token: logins[i % logins.length]! })],
    ['DELETE /api/agent/sessions/current', (i) => rest.delete('/api/agent/sessions/current', { token: sessions[i]!.token })],
  ];

  // Every write route has a round (GET /start and /step also write: they start and advance runs).
  const covered = rounds.map(([name]) => name.split(' (')[0]);
  const routes = writeRoutes((method) => server.app.http.printRoutes({ commonPrefix: false, method } as never));
  expect(routes.length).toBeGreaterThan(20);
  const notWrites = ['DELETE /mcp']; // answers 405: the MCP endpoint is stateless
  expect(routes.filter((route) => !covered.includes(route) && !notWrites.includes(route))).toEqual([]);

  const health = watchHealth(server.url);
  const summary: Record<string, Record<number, number>> = {};
  try {
    for (const [name, send] of rounds) {
      const answers = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => send(i)));
      const counts: Record<number, number> = {};
      for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
      summary[name] = counts;
      const errors = answers.filter((a) => a.status >= 500).map((a) => JSON.stringify(a.body));
      expect({ name, errors }).toEqual({ name, errors: [] });
      expect({ name, succeeded: answers.some((a) => a.status < 300) }).toEqual({ name, succeeded: true });
    }
  } finally {
    const { probes, failures } = await health.stop();
    expect(failures).toEqual([]);
    expect(probes).toBeGreaterThan(rounds.length);
  }
  // The rounds did real work on the shared rows.
  expect(forks).toHaveLength(CONCURRENCY);
  expect(nodes.length).toBeGreaterThan(1);
  expect(edges.length).toBeGreaterThan(0);
});
