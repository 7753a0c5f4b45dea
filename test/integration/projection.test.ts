import {
  ForkTreeBatchedDocument,
  ProjectedBlueprintBySlugDocument,
  ForkTreeOneStatementDocument,
  ForkTreeShapesBatchedDocument,
  ForkTreeShapesOneStatementDocument,
  ProjectedForksDocument,
  ProjectedForksWithModulesDocument,
  ProjectedRegistryDocument,
} from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { captureSql as capture } from '../helpers/sql-capture';
import { query } from '../helpers/sql';

let server: TestServer;
let owner: string;
let other: string;
let rootId: string;
let privateChildId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('projection owner');
  other = await server.rest.agentToken('projection other');
  const root = await createBlueprint(server.rest, owner, { name: 'Projection root', tags: ['projection'] });
  rootId = root.id;
  await fork(server.rest, owner, rootId);
  await fork(server.rest, other, rootId);
  // A private fork: never listed in forks, and in children only for its owner.
  const hidden = await fork(server.rest, other, rootId);
  privateChildId = hidden.id;
  await query(server.databaseUrl, "update blueprint set visibility = 'private' where id = $1", [privateChildId]);
}, 60_000);
afterAll(() => server.close());

/** A statement without the columns the carried token lookup's wrapper passes through (platform/graphql/deferred-viewer.ts). */
const withoutViewerWrapper = (sql: string) => sql.replace(/\bbw_[qr]\.\*/g, '');

describe('the blueprint read projection', () => {
  it('selects no plan column for forks, children and lineage when no plan field is asked for', async () => {
    let data: any;
    const statements = await capture(async () => (data = await server.gql.ok(ProjectedForksDocument, { id: rootId }, owner)));
    // The queried blueprint itself is read through the projection too.
    expect(statements.length).toBeGreaterThanOrEqual(4);
    for (const sql of statements) {
      expect(sql).not.toMatch(/\bplan\b/);
      // (the token lookup's wrapper passes the read's own columns on: bw_q.*, bw_r.*)
      expect(withoutViewerWrapper(sql)).not.toMatch(/\.\*/);
      expect(sql).not.toMatch(/select \* from blueprint/);
    }
    expect(data.blueprint.forks.edges).toHaveLength(2);
    expect(data.blueprint.forks.edges.map((e: any) => e.node.name)).toEqual(['Projection root', 'Projection root']);
    expect(data.blueprint.forks.edges[0].node).toMatchObject({ stars: 0, successRate: null });
    expect(data.blueprint.lineage.nodes).toHaveLength(3);
  });

  it('reads one blueprint by slug as a plain row of the asked columns, and any slug text is only a miss', async () => {
    const slug = (await query<{ slug: string }>(server.databaseUrl, 'select slug from blueprint where id = $1', [rootId]))[0]!.slug;
    let data: any;
    const statements = await capture(async () => (data = await server.gql.ok(ProjectedBlueprintBySlugDocument, { slug }, owner)));
    expect(data.blueprint).toEqual({ id: rootId, slug, name: 'Projection root', stars: 0 });
    for (const sql of statements) expect(withoutViewerWrapper(sql)).not.toMatch(/\bplan\b|\.\*/);
    // Quotes, backslashes, commas and braces are data in the key array, never syntax: null, not an error.
    for (const odd of ['a"b', 'a\\b', 'a,b', '{x}', "a'b", 'NULL'])
      expect((await server.gql.ok(ProjectedBlueprintBySlugDocument, { slug: odd }, owner)).blueprint).toBeNull();
  });

  it('selects the plan when a plan field is asked for, and answers from it', async () => {
    let data: any;
    const statements = await capture(async () => (data = await server.gql.ok(ProjectedForksWithModulesDocument, { id: rootId }, owner)));
    expect(statements.some((s) => /\bplan\b/.test(s))).toBe(true);
    expect(data.blueprint.forks.edges[0].node.modules.map((m: any) => m.key)).toEqual(['api', 'db', 'web']);
  });

  it('selects no plan column for the registry', async () => {
    let data: any;
    const statements = await capture(async () => (data = await server.gql.ok(ProjectedRegistryDocument, { q: 'projection' }, owner)));
    expect(statements.length).toBeGreaterThan(0);
    for (const sql of statements) expect(sql).not.toMatch(/\bplan\b/);
    expect(data.registry.edges.map((e: any) => e.node.id)).toContain(rootId);
    expect(data.registry.edges.map((e: any) => e.node.id)).not.toContain(privateChildId);
  });

  it('never shows a private child to others, and shows it to its owner', async () => {
    // A caller with no part in it (anonymous callers are refused outright: the public rule).
    const anonymous = await server.gql.ok(ProjectedForksDocument, { id: rootId }, await server.rest.agentToken('projection stranger'));
    const asOwner = await server.gql.ok(ProjectedForksDocument, { id: rootId }, owner);
    const asOther = await server.gql.ok(ProjectedForksDocument, { id: rootId }, other);
    const childIds = (d: any) => d.blueprint.children.map((c: any) => c.blueprint.id);
    const lineageIds = (d: any) => d.blueprint.lineage.nodes.map((n: any) => n.id);
    expect(childIds(anonymous)).not.toContain(privateChildId);
    expect(childIds(asOwner)).not.toContain(privateChildId);
    expect(lineageIds(anonymous)).not.toContain(privateChildId);
    expect(childIds(asOther)).toContain(privateChildId);
    expect(lineageIds(asOther)).toContain(privateChildId);
    expect(asOther.blueprint!.forks.edges.map((e) => e.node.id)).not.toContain(privateChildId);
  });
});

describe('a fork tree read in one statement', () => {
  it('answers exactly as the batched path (one statement per level) does, page by page', async () => {
    const grandchild = await fork(server.rest, owner, (await server.gql.ok(ProjectedForksDocument, { id: rootId }, owner)).blueprint!.forks.edges[0]!.node.id);
    for (const args of [{ first: 1 }, { first: 1, after: undefined as string | undefined }, { first: 5 }]) {
      const one = await server.gql.request(ForkTreeOneStatementDocument, { id: rootId, ...args }, owner);
      const batched = await server.gql.request(ForkTreeBatchedDocument, { id: rootId, ...args }, owner);
      expect(one.errors).toBeUndefined();
      expect(one.data).toEqual(batched.data);
      // the root with the whole tree below it (the token lookup riding in it), against root + one statement per level (+1 for the inner counts)
      expect(one.sqlStatements).toBe(1);
      expect(batched.sqlStatements).toBeGreaterThan(one.sqlStatements);
    }
    const page2 = await server.gql.ok(
      ForkTreeOneStatementDocument,
      { id: rootId, first: 1, after: (await server.gql.ok(ForkTreeOneStatementDocument, { id: rootId, first: 1 }, owner)).blueprint!.forks.pageInfo.endCursor },
      owner,
    );
    const page2Batched = await server.gql.ok(
      ForkTreeBatchedDocument,
      { id: rootId, first: 1, after: (await server.gql.ok(ForkTreeOneStatementDocument, { id: rootId, first: 1 }, owner)).blueprint!.forks.pageInfo.endCursor },
      owner,
    );
    expect(page2).toEqual(page2Batched);
    expect(page2.blueprint!.forks.totalCount).toBe(2);
    const all = await server.gql.ok(ForkTreeOneStatementDocument, { id: rootId, first: 5 }, owner);
    expect(all.blueprint!.forks.edges[0]!.node.forks.edges.map((e) => e.node.id)).toEqual([grandchild.id]);
    expect(all.blueprint!.forks.edges.map((e) => e.node.id)).not.toContain(privateChildId);
  });

  it('answers every plain field, a level without its count and nodes that need their owner exactly as the batched path', async () => {
    const one = await server.gql.request(ForkTreeShapesOneStatementDocument, { id: rootId }, other);
    const batched = await server.gql.request(ForkTreeShapesBatchedDocument, { id: rootId }, other);
    expect(one.errors).toBeUndefined();
    expect(batched.errors).toBeUndefined();
    expect(one.data).toEqual(batched.data);
    // the root with its tree (and the token lookup), and the owners of level 2 (one batch)
    expect(one.sqlStatements).toBe(2);
    const forks = one.data!.blueprint!.forks.edges;
    expect(forks.length).toBeGreaterThan(0);
    expect(forks.map((e) => e.node.visibility)).toEqual(forks.map(() => 'PUBLIC'));
    expect(forks.flatMap((e) => e.node.forks.edges.map((g) => g.node.owner.name)).length).toBeGreaterThan(0);
  });

  it('reads no count for a level that asks for neither totalCount nor pageInfo, and no access column for plain public nodes', async () => {
    const sql = await capture(() => server.gql.ok(ForkTreeShapesOneStatementDocument, { id: rootId }, other));
    const tree = sql.find((s) => s.includes('json_agg'))!;
    // Level 1 (edges only) has no count; level 2 (pageInfo) and level 3 (totalCount) have one each.
    expect(tree.match(/select count\(\*\)/g)).toHaveLength(2);
    // Level 1's nodes show only their own columns; level 2's need owner_id for \`owner\`.
    expect(tree).not.toContain('f1.owner_id');
    expect(tree).toContain('f2.owner_id');
  });

  it('answers null for a root the caller may not see, and the tree to its owner, in the same one statement', async () => {
    const stranger = await server.gql.request(ForkTreeOneStatementDocument, { id: privateChildId, first: 5 }, owner);
    expect(stranger.errors).toBeUndefined();
    expect(stranger.data!.blueprint).toBeNull();
    const mine = await server.gql.request(ForkTreeOneStatementDocument, { id: privateChildId, first: 5 }, other);
    expect(mine.data!.blueprint).not.toBeNull();
    expect(mine.data!.blueprint!.forks.totalCount).toBe(0);
    expect(mine.sqlStatements).toBe(1);
  });
});
