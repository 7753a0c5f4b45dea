/**
 * `npm run bench:architecture`: builds an architecture of 200 nodes and 400 manual edges (plus the lineage
 * edges its forks imply) on a fresh database `bw_bench_<random>` of the DATABASE_URL server, reads it at
 * the ecosystem zoom level in one GraphQL query, and prints the SQL statements that read costs (for 20
 * and for 200 nodes: the count must not grow) and the requests per second autocannon sustains for it
 * (about 10 s, 127.0.0.1 only) against the server in its own process, as deployed (NODE_ENV=production,
 * no SQL counting), beside the floor: the same answer from one json_agg statement through `pg`. The
 * database is dropped at the end.
 */
import 'reflect-metadata';
import { startApp, type RunningApp } from '../src/app';
import { floor, serverProcess, benchAppConfig, withBenchDatabase } from './harness';

/** The floor: the ecosystem answer (nodes with cards and composition, manual + lineage edges) as JSON in one statement. */
const FLOOR_SQL = `select json_build_object('slug', a.slug, 'name', a.name,
  'nodes', (select coalesce(json_agg(json_build_object('id', n.id, 'redacted', false, 'position', json_build_object('x', n.position_x, 'y', n.position_y),
      'composition', (select coalesce(json_agg(json_build_object('kind', k.kind, 'count', k.n) order by k.n desc, k.kind collate "C"), '[]')
                        from (select m->>'kind' as kind, count(*)::int as n from jsonb_array_elements(b.plan->'modules') m group by 1) k),
      'card', json_build_object('id', b.id, 'name', b.name, 'stars', b.stars_count, 'moduleCount', b.module_count, 'stepCount', b.step_count,
        'successRate', case when b.executions_completed + b.executions_failed + b.executions_abandoned = 0 then null
                            else b.executions_completed::float / (b.executions_completed + b.executions_failed + b.executions_abandoned) end))
      order by n.created_at, n.id), '[]')
    from architecture_node n join blueprint b on b.id = n.blueprint_id where n.architecture_id = a.id),
  'edges', (select coalesce(json_agg(e), '[]') from (
      select id::text, source_node_id as source, target_node_id as target, edge_type as "edgeType", label, false as computed
        from architecture_edge where architecture_id = a.id
      union all
      select 'lineage:' || pn.id || ':' || cn.id, pn.id, cn.id, case when l.kind = 'breed' then 'lineage_breed' else 'lineage_fork' end, null, true
        from architecture_node pn join lineage_link l on l.parent_id = pn.blueprint_id
        join architecture_node cn on cn.architecture_id = pn.architecture_id and cn.blueprint_id = l.child_id
       where pn.architecture_id = a.id) e)) as data
  from architecture a where a.slug = $1`;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  duration: number;
}
// autocannon ships no types; this is the part of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS module
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

const ECOSYSTEM_QUERY = `query Ecosystem($slug: String!) {
  architecture(slug: $slug) {
    slug name
    nodes { id redacted position { x y } composition { kind count } card { id name stars moduleCount stepCount successRate } }
    edges { id source target edgeType label computed }
  }
}`;

const KINDS = ['frontend', 'backend', 'data', 'service', 'infra', 'queue', 'auth'];
const EDGE_TYPES = ['api_call', 'event', 'shared_db', 'auth', 'custom'];

class Api {
  constructor(
    private readonly base: string,
    private token = '',
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(this.base + path, {
      method,
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  async login(): Promise<void> {
    this.token = (await this.call('POST', '/api/agent/sessions', { name: 'bench' })).token;
  }

  get bearer(): string {
    return this.token;
  }

  /** A blueprint through the five `create` steps; module kinds vary with `n`. */
  async createBlueprint(n: number): Promise<string> {
    const modules = [0, 1, 2, 3].map((i) => ({
      key: `m${i}`,
      name: `Module ${i}`,
      kind: KINDS[(n + i) % KINDS.length],
      depends_on: i === 0 ? [] : [`m${i - 1}`],
    }));
    const steps = modules.flatMap((m) =>
      [1, 2].map((j) => ({ key: `${m.key}-s${j}`, module_key: m.key, title: `Step ${j} of ${m.key}`, instructions: 'Do it', acceptance: ['done'] })),
    );
    const submissions = [
      { modules },
      { steps },
      { configuration: { language: 'typescript' } },
      { design_system: {} },
      { name: `Bench blueprint ${n}`, visibility: 'public' },
    ];
    let op = await this.call('POST', '/api/tools/operations', { tool_type: 'create', params: {} });
    for (const submission of submissions) op = await this.call('POST', `/api/tools/operations/${op.operation_id}/submit`, { token: op.token, submission });
    return op.result.blueprint_ids[0];
  }
}

/** An architecture over `blueprintIds` with twice as many manual edges as nodes, of every manual type. */
async function buildArchitecture(api: Api, name: string, blueprintIds: string[]): Promise<string> {
  const arch = await api.call('POST', '/api/architectures', { name, visibility: 'public' });
  const nodes: string[] = [];
  for (const id of blueprintIds) nodes.push((await api.call('POST', `/api/architectures/${arch.slug}/nodes`, { blueprint_id: id })).id);
  const n = nodes.length;
  for (let i = 0; i < 2 * n; i++) {
    const source = i % n;
    const target = (source + 1 + Math.floor(i / n) * 3) % n;
    const type = EDGE_TYPES[i % EDGE_TYPES.length]!;
    await api.call('POST', `/api/architectures/${arch.slug}/edges`, {
      source_node_id: nodes[source],
      target_node_id: nodes[target],
      edge_type: type,
      label: type === 'custom' ? `link ${i}` : null,
    });
  }
  return arch.slug;
}

async function readOnce(
  app: RunningApp,
  token: string,
  slug: string,
): Promise<{ statements: number; nodes: number; edges: number; lineage: number; bytes: number }> {
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: ECOSYSTEM_QUERY, variables: { slug } }),
  });
  const text = await res.text();
  const body = JSON.parse(text) as { data?: { architecture: { nodes: unknown[]; edges: Array<{ computed: boolean }> } }; errors?: unknown };
  if (body.errors || !body.data?.architecture) throw new Error(`ecosystem query failed: ${text.slice(0, 500)}`);
  const { nodes, edges } = body.data.architecture;
  return {
    statements: Number(res.headers.get('x-sql-statements')),
    nodes: nodes.length,
    edges: edges.length,
    lineage: edges.filter((e) => e.computed).length,
    bytes: text.length,
  };
}

async function main(): Promise<void> {
  await withBenchDatabase(async ({ databaseUrl, dbName, db }, stopBeforeDrop) => {
    const app = await startApp(benchAppConfig(databaseUrl));
    stopBeforeDrop(() => app.close());
    const api = new Api(app.url);
    await api.login();

    const t0 = Date.now();
    // 20 distinct blueprints, each forked 9 times: 200 nodes, and 180 lineage_fork edges computed on read.
    const originals: string[] = [];
    for (let i = 0; i < 20; i++) originals.push(await api.createBlueprint(i));
    const all: string[] = [];
    for (const id of originals) {
      all.push(id);
      for (let j = 0; j < 9; j++) all.push((await api.call('POST', `/api/blueprints/${id}/fork`)).id);
    }
    const small = await buildArchitecture(api, 'Bench 20', all.filter((_, i) => i % 10 < 1 || i % 10 === 5).slice(0, 20));
    const large = await buildArchitecture(api, 'Bench 200', all);
    console.log(`setup: 200 blueprints, architectures of 20 and 200 nodes built over HTTP in ${((Date.now() - t0) / 1000).toFixed(1)} s (database ${dbName})`);

    const smallRead = await readOnce(app, api.bearer, small);
    const largeRead = await readOnce(app, api.bearer, large);
    console.log('\necosystem zoom level, one GraphQL query:');
    for (const [label, r] of [
      ['20 nodes', smallRead],
      ['200 nodes', largeRead],
    ] as const)
      console.log(
        `  ${label.padEnd(9)}: ${String(r.nodes).padStart(3)} nodes, ${String(r.edges).padStart(3)} edges (${r.edges - r.lineage} manual + ${r.lineage} lineage), ${(r.bytes / 1024).toFixed(0)} KiB, SQL statements: ${r.statements}`,
      );
    console.log(`  statements independent of node count: ${smallRead.statements === largeRead.statements ? 'yes' : 'NO'}`);

    // What autovacuum does in a deployment (the CI server runs with it off).
    await db.query('vacuum analyze');
    // The load runs against the server as a deployment runs it: its own process, no SQL counting.
    const server = await serverProcess(databaseUrl);
    stopBeforeDrop(server.stop);
    const result = await autocannon({
      url: `${server.url}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.bearer}` },
      body: JSON.stringify({ query: ECOSYSTEM_QUERY, variables: { slug: large } }),
      connections: 10,
      duration: Number(process.env.BENCH_DURATION ?? 10),
    });
    console.log(
      `\nautocannon, 200-node ecosystem query, 10 connections, ${process.env.BENCH_DURATION ?? 10} s, our server in its own process (NODE_ENV=production):`,
    );
    console.log(
      `  ${result.requests.average.toFixed(1)} req/s (${result.requests.total} requests), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${(result.throughput.average / 1024 / 1024).toFixed(1)} MiB/s`,
    );
    console.log(`  non-2xx: ${result.non2xx}, errors: ${result.errors}`);
    // autocannon stops without waiting for the answers still on their way; let them finish before closing.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const f = await floor(databaseUrl, FLOOR_SQL, [large], Number(process.env.BENCH_DURATION ?? 10), 10);
    console.log(
      `\nfloor: the same answer as one hand-written json_agg statement through pg, 10 clients: ${f.rps.toFixed(1)} statements/s, p50 ${f.p50} ms, p99 ${f.p99} ms, ${(f.bytes / 1024).toFixed(0)} KiB`,
    );
    console.log(`  ours / floor = ${(result.requests.average / f.rps).toFixed(2)}x (goal >= 0.5)`);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
