import { ForkTreeCountsDocument, ForkTreeDocument } from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
/** A signed-in stranger: the calls tests made anonymously before the public rule need a token now. */
let reader: string;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  token = await server.rest.agentToken('tree builder');
});
afterAll(() => server.close());

/** root -> `breadth` forks -> `breadth` forks each; returns the root's id. */
async function forkTree(breadth: number): Promise<string> {
  const root = await createBlueprint(server.rest, token, { name: `Tree ${breadth}` });
  const level1 = await Promise.all(Array.from({ length: breadth }, () => fork(server.rest, token, root.id)));
  await Promise.all(level1.flatMap((f) => Array.from({ length: breadth }, () => fork(server.rest, token, f.id))));
  return root.id;
}

describe('nested forks batch: one SQL statement per level, whatever the breadth', () => {
  let small: string;
  let large: string;

  beforeAll(async () => {
    small = await forkTree(3);
    large = await forkTree(8);
  }, 120_000);

  it('issues the same statements for blueprint{forks{edges{node{forks{edges{node{forks{totalCount}}}}}}}} at 3x3 and 8x8', async () => {
    for (const caller of [await server.rest.agentToken('stranger'), token]) {
      // Once first (a token's first request looks it up on its own statement; later ones carry the lookup in
      // the read), so that both measured requests take the same path.
      await server.gql.request(ForkTreeCountsDocument, { id: small }, caller);
      const a = await server.gql.request(ForkTreeCountsDocument, { id: small }, caller);
      const b = await server.gql.request(ForkTreeCountsDocument, { id: large }, caller);
      expect(a.errors).toBeUndefined();
      expect(b.errors).toBeUndefined();
      // The answers are complete: every grandchild reports its (zero) forks.
      const grandchildren = (r: typeof a) => r.data!.blueprint!.forks.edges.flatMap((e) => e.node.forks.edges.map((g) => g.node.forks.totalCount));
      expect(grandchildren(a)).toEqual(Array(9).fill(0));
      expect(grandchildren(b)).toEqual(Array(64).fill(0));
      expect(b.sqlStatements).toBe(a.sqlStatements);
      // blueprint + 3 levels, plus at most the token lookup and the viewer's team roles.
      expect(b.sqlStatements).toBeLessThanOrEqual(4 + (caller ? 2 : 0));
    }
  });

  it('keeps the count flat when the pages and the inner count are both selected', async () => {
    await server.gql.request(ForkTreeDocument, { id: small, first: 10 }, reader); // the same path for both, as above
    const a = await server.gql.request(ForkTreeDocument, { id: small, first: 10 }, reader);
    const b = await server.gql.request(ForkTreeDocument, { id: large, first: 10 }, reader);
    expect(b.errors).toBeUndefined();
    expect(b.data!.blueprint!.forks.edges).toHaveLength(8);
    expect(b.sqlStatements).toBe(a.sqlStatements);
  });

  it('counts forks of each level exactly', async () => {
    const res = await server.gql.ok(ForkTreeCountsDocument, { id: large }, reader);
    expect(res.blueprint!.forks.edges).toHaveLength(8);
    for (const e of res.blueprint!.forks.edges) expect(e.node.forks.edges).toHaveLength(8);
  });
});
