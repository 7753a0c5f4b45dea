/**
 * `npm run bench:proposals`: a proposal between two plans of 500 modules (2,000 steps) each, read in one
 * request, beside a plain read of the same two plans. On a fresh database `bw_bench_<random>` of the
 * DATABASE_URL server (dropped at the end), with the server in this process counting SQL statements. For
 * each size (20 and 500 modules) it prints the statements, the answer's size and the median time of 20
 * reads of: `GET /api/blueprints/:target/proposals/1` (changes and conflicts computed against both heads),
 * the GraphQL `blueprint { proposal(number: 1) { ... } }`, and `GET /api/blueprints/:id` of the target and
 * of the source. The statement count of a proposal read must not grow with the plans.
 */
import 'reflect-metadata';
import { startApp } from '../src/app';
import { benchAppConfig, withBenchDatabase } from './harness';

const KINDS = ['frontend', 'backend', 'data', 'service', 'infra'];
const READS = Number(process.env.BENCH_READS ?? 20);

class Api {
  token = '';
  constructor(private readonly base: string) {}

  async raw(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; bytes: number; statements: number; ms: number }> {
    const t0 = performance.now();
    const res = await fetch(this.base + path, {
      method,
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    return { status: res.status, json: JSON.parse(text), bytes: Buffer.byteLength(text), statements: Number(res.headers.get('x-sql-statements')), ms };
  }

  async call(method: string, path: string, body?: unknown): Promise<any> {
    const r = await this.raw(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    return r.json;
  }
}

/** A plan of `n` modules in a dependency chain of ten-module layers, four steps each. */
function bigPlan(n: number) {
  const modules = Array.from({ length: n }, (_, i) => ({
    key: `m${i}`,
    name: `Module ${i}`,
    kind: KINDS[i % KINDS.length]!,
    summary: `Module ${i} of the benchmark plan, with a summary of realistic length for a card.`,
    depends_on: i < 10 ? [] : [`m${i - 10}`],
  }));
  const steps = modules.flatMap((m) =>
    [1, 2, 3, 4].map((j) => ({
      key: `${m.key}-s${j}`,
      module_key: m.key,
      title: `Step ${j} of ${m.key}`,
      instructions: 'Write the code, then the tests, then the documentation.',
      acceptance: ['tests pass'],
    })),
  );
  return { modules, steps, configuration: { language: 'typescript' }, design_system: { font: 'Inter' } };
}

async function createWithPlan(api: Api, name: string, modules: number): Promise<string> {
  let op = await api.call('POST', '/api/tools/operations', { tool_type: 'create', params: {} });
  const submissions = [
    { modules: [{ key: 'seed', name: 'Seed', kind: 'service' }] },
    { steps: [{ key: 'seed-s1', module_key: 'seed', title: 'Seed', instructions: 'x' }] },
    { configuration: {} },
    { design_system: {} },
    { name, visibility: 'public' },
  ];
  for (const submission of submissions) op = await api.call('POST', `/api/tools/operations/${op.operation_id}/submit`, { token: op.token, submission });
  const id = op.result.blueprint_ids[0] as string;
  await api.call('PUT', `/api/blueprints/${id}/plan`, { ...bigPlan(modules), base_version: 1 });
  return id;
}

/** Both sides edit a tenth of the modules; a few of them the same ones, differently (conflicts). */
async function diverge(owner: Api, forker: Api, targetId: string, sourceId: string, modules: number): Promise<void> {
  const edit = async (api: Api, id: string, change: (plan: any) => void) => {
    const bp = await api.call('GET', `/api/blueprints/${id}`);
    const plan = { modules: bp.modules, steps: bp.steps, configuration: bp.configuration, design_system: bp.design_system };
    change(plan);
    await api.call('PUT', `/api/blueprints/${id}/plan`, { ...plan, base_version: bp.version });
  };
  const tenth = Math.max(2, Math.floor(modules / 10));
  await edit(forker, sourceId, (p) => {
    for (let i = 0; i < tenth; i++) p.modules[i].summary = `Source summary ${i}`;
    const last = p.modules.pop(); // nothing depends on the last module; the plan stays at its size
    p.steps = p.steps.filter((s: any, i: number) => i % 50 !== 7 && s.module_key !== last.key);
    p.modules.push({ key: 'source-extra', name: 'Extra', kind: 'service', summary: '', depends_on: ['m0'] });
  });
  await edit(owner, targetId, (p) => {
    for (let i = tenth - 2; i < 2 * tenth; i++) p.modules[i].summary = `Target summary ${i}`;
    p.configuration.region = 'eu';
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(api: Api, method: string, path: string, body?: unknown) {
  const first = await api.raw(method, path, body);
  if (first.status >= 300) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.json).slice(0, 300)}`);
  const times: number[] = [];
  for (let i = 0; i < READS; i++) times.push((await api.raw(method, path, body)).ms);
  return { statements: first.statements, bytes: first.bytes, ms: median(times), json: first.json };
}

const PROPOSAL_QUERY = `query($id: ID!) { blueprint(id: $id) { proposal(number: 1) {
  number state mergeable baseVersion
  changes { modules { key change fields } steps { key change fields } stepsReordered configuration { added removed changed } designSystem { added removed changed } }
  conflicts { kind key reason base ours theirs } source { id name } target { id name } } } }`;

async function main(): Promise<void> {
  await withBenchDatabase(async ({ databaseUrl, dbName }, stopBeforeDrop) => {
    const app = await startApp(benchAppConfig(databaseUrl));
    stopBeforeDrop(() => app.close());
    const owner = new Api(app.url);
    owner.token = (await owner.call('POST', '/api/agent/sessions', { name: 'bench owner' })).token;
    const forker = new Api(app.url);
    forker.token = (await forker.call('POST', '/api/agent/sessions', { name: 'bench forker' })).token;
    console.log(`proposal read vs plain read of the two plans (median of ${READS} reads each, one request each, database ${dbName})`);
    for (const modules of [20, 500]) {
      const target = await createWithPlan(owner, `Bench target ${modules}`, modules);
      const source = (await forker.call('POST', `/api/blueprints/${target}/fork`)).id as string;
      await diverge(owner, forker, target, source, modules);
      await forker.call('POST', `/api/blueprints/${target}/proposals`, { source_blueprint_id: source, title: 'Bench proposal' });
      const rest = await measure(owner, 'GET', `/api/blueprints/${target}/proposals/1`);
      const gql = await measure(owner, 'POST', '/graphql', { query: PROPOSAL_QUERY, variables: { id: target } });
      const plainTarget = await measure(owner, 'GET', `/api/blueprints/${target}`);
      const plainSource = await measure(owner, 'GET', `/api/blueprints/${source}`);
      const p = rest.json;
      console.log(
        `\n${modules} modules, ${modules * 4} steps per plan: ${p.changes.modules.length} module and ${p.changes.steps.length} step changes, ${p.conflicts.length} conflicts`,
      );
      const row = (label: string, r: { statements: number; bytes: number; ms: number }) =>
        console.log(
          `  ${label.padEnd(44)} SQL statements: ${String(r.statements).padStart(2)}  ${(r.bytes / 1024).toFixed(0).padStart(5)} KiB  ${r.ms.toFixed(1).padStart(7)} ms`,
        );
      row('GET /api/blueprints/:t/proposals/1', rest);
      row('GraphQL blueprint { proposal(number: 1) }', gql);
      row('GET /api/blueprints/:target (plain)', plainTarget);
      row('GET /api/blueprints/:source (plain)', plainSource);
      row('the two plain reads together', {
        statements: plainTarget.statements + plainSource.statements,
        bytes: plainTarget.bytes + plainSource.bytes,
        ms: plainTarget.ms + plainSource.ms,
      });
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
