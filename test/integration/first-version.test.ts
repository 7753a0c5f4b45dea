import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { captureSql } from '../helpers/sql-capture';

/**
 * A blueprint made by a write (created, or forked) gets version 1 without a read to number it: it cannot
 * have a version yet (`recordFirstVersion`). Its history still starts at 1 and goes on from there.
 */
let server: TestServer;
let owner: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = (await server.rest.signUp()).token;
}, 60_000);
afterAll(() => server.close());

const numbering = (statements: string[]) => statements.filter((sql) => /max\(number\), 0\) \+ 1/.test(sql));

it('a fork is version 1 of its own history, numbered without a read', async () => {
  const source = await createBlueprint(server.rest, owner, { name: 'Numbered source' });
  let forked: { id: string } | undefined;
  const statements = await captureSql(async () => (forked = await fork(server.rest, owner, source.id)));
  expect(numbering(statements)).toEqual([]);
  const res = await server.rest.get(`/api/blueprints/${forked!.id}/versions`, { token: owner });
  expect(res.status).toBe(200);
  expect(res.body.items.map((v: { number: number; cause: string }) => [v.number, v.cause])).toEqual([[1, 'fork']]);
});

it('a created blueprint is version 1, and the next write of its plan is version 2', async () => {
  let created: { id: string } | undefined;
  const statements = await captureSql(async () => (created = await createBlueprint(server.rest, owner, { name: 'Numbered new' })));
  expect(numbering(statements)).toEqual([]);
  const before = await server.rest.get(`/api/blueprints/${created!.id}/versions`, { token: owner });
  expect(before.body.items.map((v: { number: number }) => v.number)).toEqual([1]);
  const bp = (await server.rest.get(`/api/blueprints/${created!.id}`, { token: owner })).body;
  const plan = { modules: bp.modules, steps: bp.steps, configuration: { ...bp.configuration, region: 'eu' }, design_system: bp.design_system };
  const edit = await server.rest.put(`/api/blueprints/${created!.id}/plan`, { token: owner, body: { ...plan, base_version: 1 } });
  expect(edit.status).toBe(200);
  const after = await server.rest.get(`/api/blueprints/${created!.id}/versions`, { token: owner });
  expect(after.body.items.map((v: { number: number }) => v.number)).toEqual([2, 1]);
});
