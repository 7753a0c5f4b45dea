import { createArchitecture } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { captureSql } from '../helpers/sql-capture';

/**
 * A write that needs a new slug asks about all of its candidates in one read (`uniqueSlug`): a fork's
 * base is always taken (its source has it), and asking one candidate at a time cost every fork two reads.
 */
let server: TestServer;
let owner: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = (await server.rest.signUp()).token;
}, 60_000);
afterAll(() => server.close());

const slugReads = (statements: string[], table: string) => statements.filter((sql) => new RegExp(`from ${table} where slug`).test(sql));

it('a fork reads once for its slug and gets its source slug with a suffix', async () => {
  const source = await createBlueprint(server.rest, owner, { name: 'Slug Source' });
  expect(source.slug).toBe('slug-source');
  let forked: { slug: string } | undefined;
  const statements = await captureSql(async () => (forked = await fork(server.rest, owner, source.id)));
  expect(slugReads(statements, 'blueprint')).toHaveLength(1);
  expect(forked!.slug).toMatch(/^slug-source-[0-9a-f]{6}$/);
});

it('a created blueprint or architecture whose name is taken reads once and gets a suffix', async () => {
  let second: { slug: string } | undefined;
  await createBlueprint(server.rest, owner, { name: 'Taken Name' });
  const statements = await captureSql(async () => (second = await createBlueprint(server.rest, owner, { name: 'Taken Name' })));
  expect(slugReads(statements, 'blueprint')).toHaveLength(1);
  expect(second!.slug).toMatch(/^taken-name-[0-9a-f]{6}$/);

  await createArchitecture(server.rest, owner, { name: 'Taken Map' });
  let map: { slug: string } | undefined;
  const mapStatements = await captureSql(async () => (map = await createArchitecture(server.rest, owner, { name: 'Taken Map' })));
  expect(slugReads(mapStatements, 'architecture')).toHaveLength(1);
  expect(map!.slug).toMatch(/^taken-map-[0-9a-f]{6}$/);
});
