import { Client } from 'pg';
import { createBlueprint } from '../../fixtures/blueprints';
import { rowCount, runTool, startTool, submit, versions } from '../../fixtures/tool-driver';
import { startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let owner: string;
let other: string;

beforeAll(async () => {
  server = await startTestServer();
  [owner, other] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('other')]);
});
afterAll(() => server.close());

const noJsonChange = { added: [], removed: [], changed: [] };
const get = async (id: string, token = owner) => (await server.rest.get(`/api/blueprints/${id}`, { token })).body;

/**
 * The events the writes after this point committed, read from the event outbox (every event is a row there,
 * written in its write's own transaction; the relay publishes them after the commit).
 */
async function listen(): Promise<{ events: any[]; close(): Promise<void> }> {
  const client = new Client({ connectionString: server.databaseUrl });
  await client.connect();
  const since = (await client.query('select coalesce(max(id), 0)::text as id from event_outbox')).rows[0].id as string;
  const events: any[] = [];
  return {
    events,
    async close() {
      const rows = await client.query('select topic, payload from event_outbox where id > $1::bigint order by id', [since]);
      // `at` (the send time, for the lag metric) differs per event; the rest is the contract.
      for (const row of rows.rows) events.push({ topic: row.topic, payload: (({ at: _at, ...payload }) => payload)(row.payload) });
      await client.end();
    },
  };
}

describe('fuzz', () => {
  it('adds the proposed checks to the steps and writes them as the newest version with its change metadata', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Fuzzed' });
    const bus = await listen();
    const op = await startTool(server.rest, owner, { tool_type: 'fuzz', source_blueprint_ids: [bp.id] });
    expect(op).toMatchObject({ total_steps: 1, step: 1 });
    expect(op.prompt).toContain('schema [module db]');
    const res = await submit(server.rest, owner, op, {
      checks: [
        { step_key: 'endpoints', acceptance: ['rejects a 2 MB body with 413', 'tests pass'] },
        { step_key: 'schema', acceptance: ['migrating twice is a no-op', 'a failed migration rolls back'] },
      ],
    });
    expect(res.status).toBe(200);
    const changes = {
      operation_id: op.operation_id,
      sections_touched: ['steps'],
      modules: { added: [], removed: [], changed: [] },
      steps: {
        added: [],
        removed: [],
        changed: [
          { key: 'schema', fields: ['acceptance'] },
          { key: 'endpoints', fields: ['acceptance'] },
        ],
        reordered: false,
      },
      configuration: noJsonChange,
      design_system: noJsonChange,
      is_empty: false,
      checks_added: 3,
      steps_fuzzed: ['schema', 'endpoints'],
    };
    expect(res.body.result).toEqual({ blueprint_ids: [bp.id], version: 2, unchanged: false, changes });
    const after = await get(bp.id);
    expect(after.steps.map((s: any) => s.acceptance)).toEqual([
      ['migrations apply', 'migrating twice is a no-op', 'a failed migration rolls back'],
      ['tests pass', 'rejects a 2 MB body with 413'],
      ['renders'],
    ]);
    const [newest] = await versions(server.rest, owner, bp.id);
    expect(newest).toMatchObject({ number: 2, cause: 'fuzz', author_id: bp.owner_id, changes });
    await bus.close();
    expect(bus.events.filter((e) => e.topic === 'blueprint.activity')).toEqual([
      // `open`: the outbox insert found the (public) blueprint public, so listeners need no read.
      { topic: 'blueprint.activity', payload: { blueprintId: bp.id, kind: 'version', subjectId: expect.any(String), actorId: bp.owner_id, open: true } },
    ]);
  });

  it("refuses someone else's public blueprint with 403 and writes nothing", async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Not yours' });
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const res = await server.rest.post('/api/tools/operations', { token: other, body: { tool_type: 'fuzz', source_blueprint_ids: [bp.id] } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
    expect((await versions(server.rest, owner, bp.id)).map((v) => v.number)).toEqual([1]);
  });

  it('rejects a check for a step that does not exist, naming the path, and keeps the operation usable', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Typo' });
    const op = await startTool(server.rest, owner, { tool_type: 'fuzz', source_blueprint_ids: [bp.id] });
    const bad = await submit(server.rest, owner, op, {
      checks: [
        { step_key: 'schema', acceptance: ['x'] },
        { step_key: 'nope', acceptance: ['y'] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'submission/checks/1/step_key', message: 'names no step: "nope"' }]);
    expect((await versions(server.rest, owner, bp.id)).length).toBe(1);
    expect((await get(bp.id)).steps[0].acceptance).toEqual(['migrations apply']);
    expect((await submit(server.rest, owner, op, { checks: [{ step_key: 'schema', acceptance: ['x'] }] })).status).toBe(200);
  });
});

describe('inoculation', () => {
  const hardening = [
    {
      key: 'api-authn',
      module_key: 'api',
      title: 'Require tokens',
      instructions: 'Bearer auth on every route',
      acceptance: ['401 without a token'],
      concern: 'authn',
      after: 'endpoints',
    },
    {
      key: 'api-validation',
      module_key: 'api',
      title: 'Validate bodies',
      instructions: 'JSON Schema per route',
      acceptance: ['400 on a bad body'],
      concern: 'input_validation',
    },
    {
      key: 'db-secrets',
      module_key: 'db',
      title: 'Secrets from env',
      instructions: 'No credentials in code',
      acceptance: ['no secret in the repository'],
      concern: 'secrets',
    },
  ];

  it('inserts hardening steps after the named step or after their module, as a new version', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Hardened', configuration: { database: { password: 'x' } } });
    const op = await startTool(server.rest, owner, { tool_type: 'inoculation', source_blueprint_ids: [bp.id] });
    expect(op.prompt).toContain('Configuration keys that look like secrets: configuration.database.password');
    const res = await submit(server.rest, owner, op, { steps: hardening });
    expect(res.status).toBe(200);
    const after = await get(bp.id);
    expect(after.steps.map((s: any) => s.key)).toEqual(['schema', 'db-secrets', 'endpoints', 'api-authn', 'api-validation', 'pages']);
    expect(after.steps[3]).toEqual({
      key: 'api-authn',
      module_key: 'api',
      title: 'Require tokens',
      instructions: 'Bearer auth on every route',
      acceptance: ['401 without a token'],
    });
    expect(after.step_count).toBe(6);
    expect(res.body.result.changes).toMatchObject({
      sections_touched: ['steps'],
      steps: { added: ['db-secrets', 'api-authn', 'api-validation'], removed: [], changed: [], reordered: false },
      hardening: [
        { step_key: 'api-authn', concern: 'authn' },
        { step_key: 'api-validation', concern: 'input_validation' },
        { step_key: 'db-secrets', concern: 'secrets' },
      ],
    });
    expect((await versions(server.rest, owner, bp.id))[0]).toMatchObject({ number: 2, cause: 'inoculation' });
  });

  it('rejects hardening that leaves a required concern uncovered, and writes nothing', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Half hardened' });
    const op = await startTool(server.rest, owner, { tool_type: 'inoculation', source_blueprint_ids: [bp.id] });
    const bad = await submit(server.rest, owner, op, { steps: [hardening[0], hardening[1], { ...hardening[2], concern: 'logging' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'submission/steps', message: 'must cover the concerns secrets' }]);
    expect((await get(bp.id)).step_count).toBe(3);
    expect((await versions(server.rest, owner, bp.id)).length).toBe(1);
  });
});

describe('prune', () => {
  const spec = {
    name: 'Overgrown',
    modules: [
      { key: 'api', kind: 'backend', depends_on: ['db'] },
      { key: 'db', kind: 'data', depends_on: [] },
      { key: 'web', kind: 'frontend', depends_on: ['api'] },
      { key: 'admin', kind: 'frontend', depends_on: ['db'] },
      { key: 'legacy', kind: 'service', depends_on: [] },
    ],
    steps: [
      { key: 'schema', module_key: 'db' },
      { key: 'endpoints', module_key: 'api' },
      { key: 'old-cron', module_key: 'legacy' },
      { key: 'pages', module_key: 'web' },
      { key: 'admin-pages', module_key: 'admin' },
    ],
  };

  it('removes the modules and steps no root needs, exactly, as a new version', async () => {
    const bp = await createBlueprint(server.rest, owner, spec);
    const op = await startTool(server.rest, owner, { tool_type: 'prune', source_blueprint_ids: [bp.id], params: { roots: ['web'] } });
    expect(op.prompt).toContain('to be removed: modules admin, legacy; steps old-cron, admin-pages');
    const res = await submit(server.rest, owner, op, { keep: [] });
    expect(res.status).toBe(200);
    const after = await get(bp.id);
    expect(after.modules.map((m: any) => [m.key, m.depends_on])).toEqual([
      ['api', ['db']],
      ['db', []],
      ['web', ['api']],
    ]);
    expect(after.steps.map((s: any) => s.key)).toEqual(['schema', 'endpoints', 'pages']);
    expect(res.body.result.changes).toMatchObject({
      sections_touched: ['modules', 'steps'],
      modules: { added: [], removed: ['admin', 'legacy'], changed: [] },
      steps: { added: [], removed: ['old-cron', 'admin-pages'], changed: [], reordered: false },
      roots: ['web'],
      removed_modules: ['admin', 'legacy'],
      removed_steps: ['old-cron', 'admin-pages'],
    });
    expect((await versions(server.rest, owner, bp.id))[0]).toMatchObject({ number: 2, cause: 'prune', changes: res.body.result.changes });
  });

  it('keeps what the agent adds as roots, and takes configuration.roots when params name none', async () => {
    const bp = await createBlueprint(server.rest, owner, { ...spec, configuration: { roots: ['web'] } });
    const done = await runTool(server.rest, owner, { tool_type: 'prune', source_blueprint_ids: [bp.id] }, [{ keep: ['admin'] }]);
    expect(done.result.changes.removed_modules).toEqual(['legacy']);
    expect((await get(bp.id)).modules.map((m: any) => m.key)).toEqual(['api', 'db', 'web', 'admin']);
  });

  it('writes no version when nothing is unreachable', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Lean' });
    const done = await runTool(server.rest, owner, { tool_type: 'prune', source_blueprint_ids: [bp.id], params: { roots: ['web'] } }, [{}]);
    expect(done.result).toEqual({
      blueprint_ids: [bp.id],
      version: null,
      unchanged: true,
      changes: null,
      details: { roots: ['web'], removed_modules: [], removed_steps: [] },
    });
    expect((await versions(server.rest, owner, bp.id)).length).toBe(1);
  });

  it('rejects a plan without declared roots, and a root that names no module, creating no operation', async () => {
    const bp = await createBlueprint(server.rest, owner, spec);
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const none = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'prune', source_blueprint_ids: [bp.id] } });
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues[0].path).toBe('params/roots');
    const unknown = await server.rest.post('/api/tools/operations', {
      token: owner,
      body: { tool_type: 'prune', source_blueprint_ids: [bp.id], params: { roots: ['nope'] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues).toEqual([{ path: 'params/roots/0', message: 'names no module: "nope"' }]);
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });
});
