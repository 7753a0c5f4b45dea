import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server';
import { fetchAll } from '../helpers/assets';
import { createBlueprint } from '../fixtures/blueprints';
import { statusOf } from '../helpers/rest';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('GET /graphql from a browser', () => {
  it('serves GraphiQL whose every asset comes from this server, with a policy that forbids other hosts', async () => {
    const { pages, external } = await fetchAll(server.url, '/graphql');
    expect(external).toEqual([]);
    const [html, ...assets] = pages;
    expect(html!.status).toBe(200);
    expect(html!.contentType).toContain('text/html');
    expect(html!.text).toContain('graphiql');
    expect(assets.map((a) => new URL(a.url).pathname).sort()).toEqual(
      [
        '/graphiql/graphiql.min.css',
        '/graphiql/graphiql.min.js',
        '/graphiql/graphql-ws.min.js',
        '/graphiql/init.js',
        '/graphiql/react-dom.production.min.js',
        '/graphiql/react.production.min.js',
      ].sort(),
    );
    for (const a of assets) expect({ url: a.url, status: a.status, empty: a.text.length === 0 }).toEqual({ url: a.url, status: 200, empty: false });
    const res = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    // The page wires subscriptions to graphql-ws on this server's /graphql.
    const init = assets.find((a) => a.url.endsWith('/init.js'))!.text;
    expect(init).toContain('graphqlWs.createClient');
    expect(init).toContain("window.location.origin + '/graphql'");
  });

  it('still answers GraphQL over GET to non-browsers, and to a browser URL that carries a query', async () => {
    const query = encodeURIComponent('{ architectures(first: 1) { totalCount } }');
    for (const accept of ['application/json', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const res = await fetch(`${server.url}/graphql?query=${query}`, { headers: { accept, 'apollo-require-preflight': 'true' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { architectures: { totalCount: 0 } } });
    }
  });

  it('answers 404 for an unknown IDE asset', async () => {
    expect(await statusOf(`${server.url}/graphiql/nope.js`)).toBe(404);
  });
});

/** `name{labels} value` lines of a Prometheus text exposition, by series. */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

const scrape = async () => {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return parseMetrics(await res.text());
};

describe('GET /metrics', () => {
  it('moves the named series after traffic: requests, durations, SQL per request, GraphQL operations, inbox backlog, live subscribers, event lag', async () => {
    const before = await scrape();
    const owner = await server.rest.agentToken();
    const follower = await server.rest.agentToken();
    const bp = await createBlueprint(server.rest, owner, { name: 'Metered' });
    const fork = await server.rest.post(`/api/blueprints/${bp.id}/fork`, { token: follower });
    expect(fork.status).toBe(201);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).status).toBe(200);
    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      body: JSON.stringify({ query: 'query MeteredRead($id: ID!) { blueprint(id: $id) { name } }', variables: { id: bp.id } }),
    });
    expect(gql.status).toBe(200);
    await gql.arrayBuffer();

    // A live subscriber on the follower's inbox, then a broadcast that reaches it through NOTIFY.
    const client = createClient({
      url: server.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${follower}` },
    });
    const received = new Promise<unknown>((resolve, reject) => {
      client.subscribe({ query: 'subscription InboxWatch { broadcastReceived { id } }' }, { next: resolve, error: reject, complete: () => undefined });
    });
    let during = await scrape();
    for (let i = 0; i < 50 && (during.get('live_subscribers') ?? 0) < 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      during = await scrape();
    }
    expect(during.get('live_subscribers')).toBe(1);
    const sent = await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, {
      token: owner,
      body: { message: 'v2 is out', type: 'changelog', severity: 'info' },
    });
    expect(sent.status).toBe(201);
    await received;
    await client.dispose();

    let after = await scrape();
    for (let i = 0; i < 50 && after.get('live_subscribers') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape();
    }
    expect(after.get('live_subscribers')).toBe(0);
    const grew = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(grew('http_requests_total{method="POST",route="/api/blueprints/:id/fork",status="201"}')).toBe(1);
    expect(grew('http_request_duration_seconds_count{method="POST",route="/api/blueprints/:id/fork",status="201"}')).toBe(1);
    expect(grew('http_request_duration_seconds_count{method="GET",route="/api/blueprints/:id",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(grew('http_request_sql_statements_count{route="/api/blueprints/:id/fork"}')).toBe(1);
    expect(after.get('http_request_sql_statements_sum{route="/api/blueprints/:id/fork"}')).toBeGreaterThan(0);
    expect(grew('graphql_operations_total{operation_name="MeteredRead",operation_type="query",outcome="ok"}')).toBe(1);
    expect(grew('graphql_operations_total{operation_name="InboxWatch",operation_type="subscription",outcome="ok"}')).toBe(1);
    expect(after.get('inbox_unread_deliveries')).toBe(1);
    expect(grew('event_delivery_lag_seconds_count{topic="inbox.delivered"}')).toBeGreaterThanOrEqual(1);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);
    expect(after.has('nodejs_heap_size_used_bytes')).toBe(true);
  });
});
