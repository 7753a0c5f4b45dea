import { createBlueprint, fork } from '../../fixtures/blueprints';
import { rowCount, runTool, startTool, submit, versions } from '../../fixtures/tool-driver';
import { startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let owner: string;
let forker: string;

beforeAll(async () => {
  server = await startTestServer();
  [owner, forker] = await Promise.all([server.rest.agentToken('owner'), server.rest.agentToken('forker')]);
});
afterAll(() => server.close());

const get = async (id: string, token = owner) => (await server.rest.get(`/api/blueprints/${id}`, { token })).body;
const fuzz = (token: string, id: string, checks: Array<{ step_key: string; acceptance: string[] }>) =>
  runTool(server.rest, token, { tool_type: 'fuzz', source_blueprint_ids: [id] }, [{ checks }]);
const hardening = [
  { key: 'p-authn', module_key: 'api', title: 'Auth', instructions: 'tokens', acceptance: ['401'], concern: 'authn', after: 'endpoints' },
  { key: 'p-validate', module_key: 'web', title: 'Validate', instructions: 'forms', acceptance: ['400'], concern: 'input_validation' },
  { key: 'p-secrets', module_key: 'db', title: 'Secrets', instructions: 'env', acceptance: ['no secrets'], concern: 'secrets' },
];
const inoculate = (token: string, id: string) => runTool(server.rest, token, { tool_type: 'inoculation', source_blueprint_ids: [id] }, [{ steps: hardening }]);

describe('semantic_rollback', () => {
  let bp: any;
  beforeAll(async () => {
    bp = await createBlueprint(server.rest, owner, { name: 'Rolled back' });
    await fuzz(owner, bp.id, [{ step_key: 'schema', acceptance: ['idempotent'] }]); // v2
    await inoculate(owner, bp.id); // v3
  });

  it('restores a whole section from an earlier version as the newest version', async () => {
    const op = await startTool(server.rest, owner, {
      tool_type: 'semantic_rollback',
      source_blueprint_ids: [bp.id],
      params: { version: 1, sections: ['steps'] },
    });
    expect(op.prompt).toContain('would go: p-secrets, p-authn, p-validate');
    const res = await submit(server.rest, owner, op, {});
    expect(res.status).toBe(200);
    expect((await get(bp.id)).steps).toEqual(bp.steps);
    expect(res.body.result.changes).toMatchObject({
      sections_touched: ['steps'],
      steps: { added: [], removed: ['p-secrets', 'p-authn', 'p-validate'], changed: [{ key: 'schema', fields: ['acceptance'] }], reordered: false },
      restored_from: 1,
      restored_sections: ['steps'],
      restored_modules: [],
      repairs: [],
    });
    const history = await versions(server.rest, owner, bp.id);
    expect(history.map((v) => [v.number, v.cause])).toEqual([
      [4, 'semantic_rollback'],
      [3, 'inoculation'],
      [2, 'fuzz'],
      [1, 'create'],
    ]);
    expect(history[0].changes).toEqual(res.body.result.changes);
  });

  it('restores one module with its steps as that version had them, leaving the others', async () => {
    const done = await runTool(server.rest, owner, { tool_type: 'semantic_rollback', source_blueprint_ids: [bp.id], params: { version: 3 } }, [
      { modules: ['db'] },
    ]);
    // Version 3 had db's steps with the fuzz check and the secrets step; api and web keep today's steps.
    const after = await get(bp.id);
    expect(after.steps.map((s: any) => s.key)).toEqual(['schema', 'p-secrets', 'endpoints', 'pages']);
    expect(after.steps[0].acceptance).toEqual(['migrations apply', 'idempotent']);
    expect(done.result.changes).toMatchObject({
      restored_from: 3,
      restored_modules: ['db'],
      steps: { added: ['p-secrets'], changed: [{ key: 'schema', fields: ['acceptance'] }] },
    });
  });

  it('rejects a version that does not exist, and the current one, creating nothing', async () => {
    const before = [await rowCount(server.databaseUrl, 'tool_operation'), await rowCount(server.databaseUrl, 'blueprint_version')];
    const missing = await server.rest.post('/api/tools/operations', {
      token: owner,
      body: { tool_type: 'semantic_rollback', source_blueprint_ids: [bp.id], params: { version: 99, sections: ['steps'] } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues).toEqual([{ path: 'params/version', message: 'names no version of this blueprint (it has versions 1 to 5)' }]);
    const current = await server.rest.post('/api/tools/operations', {
      token: owner,
      body: { tool_type: 'semantic_rollback', source_blueprint_ids: [bp.id], params: { version: 5 } },
    });
    expect(current.status).toBe(400);
    expect([await rowCount(server.databaseUrl, 'tool_operation'), await rowCount(server.databaseUrl, 'blueprint_version')]).toEqual(before);
  });

  it('refuses to finish when another change landed since the start (409), writing nothing', async () => {
    const op = await startTool(server.rest, owner, {
      tool_type: 'semantic_rollback',
      source_blueprint_ids: [bp.id],
      params: { version: 1, sections: ['steps'] },
    });
    await fuzz(owner, bp.id, [{ step_key: 'pages', acceptance: ['meanwhile'] }]); // v6
    const res = await submit(server.rest, owner, op, {});
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { base_version: 5, current_version: 6 } });
    expect((await versions(server.rest, owner, bp.id))[0].number).toBe(6);
    expect((await server.rest.get(`/api/tools/operations/${op.operation_id}`, { token: owner })).body).toMatchObject({ status: 'active', step: 1 });
  });
});

describe('upstream_shield and upstream_merge', () => {
  let parent: any;
  let child: any;

  beforeAll(async () => {
    parent = await createBlueprint(server.rest, owner, { name: 'Upstream' }); // v1
    child = await fork(server.rest, forker, parent.id); // child v1, parent_version 1
    await inoculate(owner, parent.id); // parent v2: p-authn (api), p-validate (web), p-secrets (db)
    await fuzz(owner, parent.id, [
      { step_key: 'pages', acceptance: ['handles 10k rows'] },
      { step_key: 'schema', acceptance: ['check P'] },
    ]); // parent v3
    await fuzz(forker, child.id, [{ step_key: 'schema', acceptance: ['check F'] }]); // child v2
  });

  it('stores shields on a fork as a new version', async () => {
    const done = await runTool(server.rest, forker, { tool_type: 'upstream_shield', source_blueprint_ids: [child.id] }, [
      { modules: ['api'], paths: ['design_system.colors'] },
    ]);
    const expected = { sections: [], modules: ['api'], paths: ['design_system.colors'] };
    expect(done.result).toMatchObject({
      blueprint_ids: [child.id],
      version: 3,
      changes: { is_empty: true, sections_touched: [], shields: expected, previous_shields: { sections: [], modules: [], paths: [] } },
    });
    expect((await versions(server.rest, forker, child.id))[0]).toMatchObject({ number: 3, cause: 'upstream_shield' });
    const again = await startTool(server.rest, forker, { tool_type: 'upstream_shield', source_blueprint_ids: [child.id] });
    expect(again.prompt).toContain(JSON.stringify(expected));
    await server.rest.post(`/api/tools/operations/${again.operation_id}/cancel`, { token: forker });
  });

  it('rejects shielding a blueprint that is not a fork', async () => {
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const res = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'upstream_shield', source_blueprint_ids: [parent.id] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'source_blueprint_ids/0', message: 'is not a fork' }]);
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });

  it("merges upstream changes since the fork point, holding back shielded ones and applying the agent's resolution", async () => {
    const op = await startTool(server.rest, forker, { tool_type: 'upstream_merge', source_blueprint_ids: [child.id] });
    expect(op.prompt).toContain('Merging upstream versions 1 -> 3');
    expect(op.prompt).toContain('Held back by shields: step p-authn');
    expect(op.prompt).toContain('- step:schema (both-changed)');
    const missing = await submit(server.rest, forker, op, { resolutions: [] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues).toEqual([{ path: 'submission/resolutions', message: 'misses step:schema' }]);

    const res = await submit(server.rest, forker, op, { resolutions: [{ conflict: 'step:schema', choose: 'theirs' }] });
    expect(res.status).toBe(200);
    const after = await get(child.id, forker);
    expect(after.steps.map((s: any) => [s.key, s.acceptance])).toEqual([
      ['schema', ['migrations apply', 'check P']],
      ['p-secrets', ['no secrets']],
      ['endpoints', ['tests pass']],
      ['pages', ['renders', 'handles 10k rows']],
      ['p-validate', ['400']],
    ]);
    expect(res.body.result.changes).toMatchObject({
      sections_touched: ['steps'],
      steps: {
        added: ['p-secrets', 'p-validate'],
        removed: [],
        changed: [
          { key: 'schema', fields: ['acceptance'] },
          { key: 'pages', fields: ['acceptance'] },
        ],
      },
      upstream_id: parent.id,
      base_version: 1,
      upstream_version: 3,
      shielded: [{ kind: 'step', key: 'p-authn' }],
      conflicts: [{ id: 'step:schema', kind: 'step', key: 'schema', reason: 'both-changed', chosen: 'theirs' }],
    });
    expect((await versions(server.rest, forker, child.id))[0]).toMatchObject({ number: 4, cause: 'upstream_merge', changes: res.body.result.changes });
    expect((await get(parent.id)).step_count).toBe(6); // the parent is untouched
  });

  it('merges from where the last merge left off: nothing new upstream writes nothing', async () => {
    const op = await startTool(server.rest, forker, { tool_type: 'upstream_merge', source_blueprint_ids: [child.id] });
    expect(op.prompt).toContain('Merging upstream versions 3 -> 3');
    const res = await submit(server.rest, forker, op, { resolutions: [] });
    expect(res.body.result).toMatchObject({ version: null, unchanged: true });
    expect((await versions(server.rest, forker, child.id))[0].number).toBe(4);
  });

  it('rejects merging into a blueprint that is not a fork, creating nothing', async () => {
    const before = await rowCount(server.databaseUrl, 'tool_operation');
    const res = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'upstream_merge', source_blueprint_ids: [parent.id] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'source_blueprint_ids/0', message: 'is not a fork' }]);
    expect(await rowCount(server.databaseUrl, 'tool_operation')).toBe(before);
  });

  it("refuses a merge into someone else's fork with 403", async () => {
    const res = await server.rest.post('/api/tools/operations', { token: owner, body: { tool_type: 'upstream_merge', source_blueprint_ids: [child.id] } });
    expect(res.status).toBe(403);
  });
});
