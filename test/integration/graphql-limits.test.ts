import { defaultLimits } from '../../src/platform/config';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, Subscription, type WsClient } from '../helpers/ws';

let server: TestServer;
/** Every operation here needs a token (docs/api.md, Authentication); the limits are what is tested. */
let reader: string;
let ws: WsClient;
beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
  ws = connectWs(server.url, reader);
});
afterAll(async () => {
  await ws.close();
  await server.close();
});

/** A selection `depth` levels deep: `blueprint { forkedFrom { ... { id } } }` (top-level fields are depth 0). */
function deepQuery(depth: number): string {
  let selection = 'id';
  for (let i = 1; i < depth; i++) selection = `forkedFrom { ${selection} }`;
  return `{ blueprint(slug: "nothing") { ${selection} } }`;
}

function aliasQuery(count: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
}

/** Pages of n, n and 60 nested: n + n·(n + n·60) nodes in the worst case (610,100 at n = 100). */
const nodeHeavyQuery = `query Heavy($n: Int) { registry(first: $n) { edges { node { forks(first: $n) { edges { node { forks(first: 60) { totalCount edges { node { id name } } } } } } } } } }`;

/** A deep, wide fork tree: 50 + 50·50 + 50·50·50 = 127,550 possible nodes (GitHub accepts it). */
const forkTree = `query Tree($id: ID!) { blueprint(id: $id) { forks(first: 50) { totalCount edges { node { id name stars forks(first: 50) { totalCount edges { node { id name stars forks(first: 50) { totalCount } } } } } } } } }`;

let agentToken: string | undefined;
async function token(): Promise<string> {
  agentToken ??= await server.rest.agentToken('limits');
  return agentToken;
}

/** The errors of one operation sent over graphql-ws. */
async function overWs(query: string, variables?: Record<string, unknown>, operationName?: string) {
  const sub = new Subscription<unknown>();
  sub.dispose = ws.client.subscribe(
    { query, variables, operationName },
    { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
  );
  const result = await sub.next();
  sub.dispose();
  return result;
}

function expectOnlyValidationFailed(errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> | undefined): void {
  expect(errors?.length).toBeGreaterThan(0);
  for (const e of errors!) {
    expect(e.extensions?.code).toBe('VALIDATION_FAILED');
    expect(e.message).not.toMatch(/\s+at\s+\S+\s+\(/); // no stack frames
  }
  expect(JSON.stringify(errors)).not.toMatch(/stacktrace|exception|\.ts:\d+|\.js:\d+/i);
}

describe('GraphQL errors use the codes of docs/api.md', () => {
  it.each([
    ['a parse error', '{ viewer { id '],
    ['an unknown field', '{ viewer { id password } }'],
    ['an unknown argument', '{ viewer(as: "root") { id } }'],
    ['a missing required argument', '{ operation { id } }'],
    ['an argument of the wrong type', '{ registry(first: "ten") { totalCount } }'],
    ['an unknown enum value', '{ registry(sort: SIDEWAYS) { totalCount } }'],
    ['an unknown operation name', { query: '{ viewer { id } }', operationName: 'Nope' }],
    ['a variable of the wrong type', { query: 'query Q($n: Int) { registry(first: $n) { totalCount } }', variables: { n: 'many' } }],
    ['a missing query', { variables: {} }],
  ])('answers %s with HTTP 400 and VALIDATION_FAILED, over HTTP and graphql-ws', async (_what, doc) => {
    const body = typeof doc === 'string' ? { query: doc } : doc;
    const res = await server.rest.post('/graphql', { body, token: reader });
    expect(res.status).toBe(400);
    expect(res.body.data ?? null).toBeNull();
    expectOnlyValidationFailed(res.body.errors);
    if ('query' in body && body.query) {
      const { variables, operationName } = body as { variables?: Record<string, unknown>; operationName?: string };
      const result = await overWs(body.query, variables, operationName);
      expectOnlyValidationFailed(result.errors as never);
    }
  });
});

describe('query limits', () => {
  it(`accepts a selection ${defaultLimits.queryDepthMax} levels deep and rejects one level more, over HTTP and graphql-ws`, async () => {
    const ok = await server.gql.request(deepQuery(defaultLimits.queryDepthMax), undefined, reader);
    expect(ok.errors).toBeUndefined();
    expect(ok.data).toEqual({ blueprint: null });
    const tooDeep = await server.gql.request(deepQuery(defaultLimits.queryDepthMax + 1), undefined, reader);
    expect(tooDeep.status).toBe(400);
    expectOnlyValidationFailed(tooDeep.errors);
    expect(tooDeep.errors![0]!.message).toMatch(/depth/i);

    expect((await overWs(deepQuery(defaultLimits.queryDepthMax))).errors).toBeUndefined();
    const wsResult = await overWs(deepQuery(defaultLimits.queryDepthMax + 1));
    expectOnlyValidationFailed(wsResult.errors as never);
    expect(wsResult.errors![0]!.message).toMatch(/depth/i);
  });

  it(`accepts ${defaultLimits.queryAliasMax} aliases and rejects one more, over HTTP and graphql-ws`, async () => {
    const ok = await server.gql.request(aliasQuery(defaultLimits.queryAliasMax), undefined, reader);
    expect(ok.errors).toBeUndefined();
    const tooMany = await server.gql.request(aliasQuery(defaultLimits.queryAliasMax + 1), undefined, reader);
    expect(tooMany.status).toBe(400);
    expectOnlyValidationFailed(tooMany.errors);
    expect(tooMany.errors![0]!.message).toMatch(/alias/i);

    expect((await overWs(aliasQuery(defaultLimits.queryAliasMax))).errors).toBeUndefined();
    expectOnlyValidationFailed((await overWs(aliasQuery(defaultLimits.queryAliasMax + 1))).errors as never);
  });

  it('accepts the 3-level forks(first: 50) tree (127,550 possible nodes) and refuses a 610,100-node query naming both limits, over HTTP and graphql-ws', async () => {
    const tree = await server.gql.request(forkTree, { id: '00000000-0000-4000-8000-000000000000' }, await token());
    expect(tree.errors).toBeUndefined();
    expect(tree.data).toEqual({ blueprint: null });
    expect((await overWs(forkTree, { id: '00000000-0000-4000-8000-000000000000' })).errors).toBeUndefined();

    const cheap = await server.gql.request(nodeHeavyQuery, { n: 5 }, reader);
    expect(cheap.errors).toBeUndefined();
    const heavy = await server.gql.request(nodeHeavyQuery, { n: 100 }, reader);
    expect(heavy.status).toBe(400);
    expect(heavy.data ?? null).toBeNull();
    expectOnlyValidationFailed(heavy.errors);
    expect(heavy.errors![0]!.extensions!.details).toEqual({ nodes: 610_100, max_nodes: defaultLimits.queryNodeMax, max_page_size: defaultLimits.pageMax });
    expect(heavy.errors![0]!.message).toMatch(/500000 .*100/);

    expect((await overWs(nodeHeavyQuery, { n: 5 })).errors).toBeUndefined();
    const wsHeavy = await overWs(nodeHeavyQuery, { n: 100 });
    expectOnlyValidationFailed(wsHeavy.errors as never);
    expect((wsHeavy.errors as any)[0].extensions.details.nodes).toBe(610_100);
  });

  it.each([[101], [0], [-1]])('answers first: %d with VALIDATION_FAILED naming `first`, over HTTP and graphql-ws', async (first) => {
    const query = `{ registry(first: ${first}) { totalCount } }`;
    const res = await server.gql.request(query, undefined, reader);
    expectOnlyValidationFailed(res.errors);
    expect(res.errors![0]!.path).toEqual(['registry']);
    expect(res.errors![0]!.extensions!.details.issues).toEqual([{ path: 'first', message: expect.any(String) }]);
    expectOnlyValidationFailed((await overWs(query)).errors as never);
  });

  it('accepts first: 100', async () => {
    const res = await server.gql.request('{ registry(first: 100) { totalCount } }', undefined, reader);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ registry: { totalCount: 0 } });
  });
});
