import { graphQLSchema } from '../../src/app';
import { documentFor, rootFields } from './authorization/graphql-documents';
import { callers, matrix, PRIVATE, type Caller } from './authorization/matrix';
import { authCode, codeFor, freshToken, matrixWorld } from './authorization/world';

// The GraphQL query and mutation cells of the authorization matrix (the table: authorization/matrix.ts;
// subscriptions: authorization-ws.test.ts).
const world = matrixWorld();

describe('GraphQL: every query and mutation root field has a row', () => {
  it('the query and mutation root fields are exactly the rows', async () => {
    const fields = rootFields(await graphQLSchema(), ['query', 'mutation']);
    expect(fields.filter((f) => !(f in matrix.graphql)).sort()).toEqual([]);
    expect(
      Object.keys(matrix.graphql)
        .filter((f) => !fields.includes(f))
        .sort(),
    ).toEqual([]);
  });
});

describe('GraphQL root fields', () => {
  it.each(Object.keys(matrix.graphql))('%s', async (name) => {
    const { w, tokens } = world;
    const schema = await graphQLSchema();
    const actual = {} as Record<Caller, string>;
    const wanted = {} as Record<Caller, string>;
    for (const c of callers) {
      const token = name === 'signOut' ? await freshToken(w, c) : tokens[c];
      const { query, variables } = documentFor(w, schema, name);
      actual[c] = authCode((await w.server.gql.request(query, variables, token)).errors);
      wanted[c] = codeFor(matrix.graphql[name]![c]);
    }
    expect(actual).toEqual(wanted);
  });

  it('hides private things from those who may not see them (null, as for a missing one)', async () => {
    const { w, tokens } = world;
    for (const c of callers) {
      const res = await w.server.gql.request('query($id: ID!) { blueprint(id: $id) { id } }', { id: w.priv.id }, tokens[c]);
      if (c === 'anonymous') expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      else expect((res.data as { blueprint?: unknown } | null | undefined)?.blueprint ?? null).toEqual(PRIVATE[c] === 404 ? null : { id: w.priv.id });
    }
  });
});
