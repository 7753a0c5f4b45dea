import DataLoader from 'dataloader';
import {
  execute,
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type ExecutionResult,
} from 'graphql';
import { CompiledDocuments } from '../../../src/platform/graphql/graphql-compiled';
import { LazyConnection, settleConnections } from '../../../src/platform/graphql/graphql-connection';

/**
 * A schema shaped like ours (connection types with no field resolvers, as connectionType declares them),
 * whose connection fields answer LazyConnections that count what they load.
 */
function world() {
  const loads = { pages: 0, counts: 0, batches: [] as string[][] };
  const Thing = new GraphQLObjectType({ name: 'Thing', fields: { name: { type: new GraphQLNonNull(GraphQLString) } } });
  const PageInfo = new GraphQLObjectType({ name: 'PageInfo', fields: { hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) } } });
  const ThingEdge = new GraphQLObjectType({
    name: 'ThingEdge',
    fields: { cursor: { type: new GraphQLNonNull(GraphQLString) }, node: { type: new GraphQLNonNull(Thing) } },
  });
  const ThingConnection = new GraphQLObjectType({
    name: 'ThingConnection',
    fields: {
      edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ThingEdge))) },
      pageInfo: { type: new GraphQLNonNull(PageInfo) },
      totalCount: { type: new GraphQLNonNull(GraphQLInt) },
    },
  });
  type Ctx = { pages: DataLoader<string, { items: Array<{ name: string }>; total: number }> };
  const things = (owner: string, ctx: Ctx, fail: boolean) =>
    new LazyConnection(
      { offset: 0, limit: 2 },
      () => {
        loads.pages += 1;
        return fail ? Promise.reject(new Error(`the page of ${owner} failed`)) : ctx.pages.load(owner);
      },
      async () => {
        loads.counts += 1;
        return 3;
      },
    );
  const Holder = new GraphQLObjectType<{ id: string }, Ctx>({
    name: 'Holder',
    fields: {
      id: { type: new GraphQLNonNull(GraphQLString) },
      things: { type: new GraphQLNonNull(ThingConnection), resolve: (h, _args, ctx) => things(h.id, ctx, false) },
    },
  });
  const Query = new GraphQLObjectType<unknown, Ctx>({
    name: 'Query',
    fields: {
      things: {
        type: new GraphQLNonNull(ThingConnection),
        args: { fail: { type: GraphQLBoolean } },
        resolve: (_root, args: { fail?: boolean }, ctx) => things('root', ctx, args.fail === true),
      },
      // Through a promise, as type-graphql answers every resolver with arguments.
      later: { type: ThingConnection, resolve: async (_root, _args, ctx) => things('later', ctx, false) },
      holders: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Holder))), resolve: () => [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
    },
  });
  const schema = new GraphQLSchema({ query: Query });
  settleConnections(schema);
  const context = (): Ctx => ({
    pages: new DataLoader(async (owners) => {
      loads.batches.push([...owners]);
      return owners.map((o) => ({ items: [{ name: `${o}1` }, { name: `${o}2` }], total: 3 }));
    }),
  });
  return { schema, loads, context, compiled: new CompiledDocuments(schema) };
}

const runners = {
  'graphql-jit': (w: ReturnType<typeof world>, source: string, variableValues?: Record<string, unknown>) =>
    w.compiled.execute({ schema: w.schema, document: parse(source), contextValue: w.context(), variableValues }),
  'graphql-js': (w: ReturnType<typeof world>, source: string, variableValues?: Record<string, unknown>) =>
    execute({ schema: w.schema, document: parse(source), contextValue: w.context(), variableValues }),
};

describe.each(Object.entries(runners))('settleConnections, executed by %s', (_name, run) => {
  it('answers a lazy connection with the fields selected, loading only what they need', async () => {
    const w = world();
    expect(await run(w, '{ things { totalCount } }')).toEqual({ data: { things: { totalCount: 3 } } });
    expect(w.loads).toMatchObject({ pages: 0, counts: 1 });
    const full = await run(w, '{ later { __typename totalCount pageInfo { hasNextPage } edges { cursor node { name } } } }');
    expect(full).toEqual({
      data: {
        later: {
          __typename: 'ThingConnection',
          totalCount: 3,
          pageInfo: { hasNextPage: true },
          edges: [
            { cursor: expect.any(String), node: { name: 'later1' } },
            { cursor: expect.any(String), node: { name: 'later2' } },
          ],
        },
      },
    });
    // Once the page is read, the count is the page's: one load, no count statement.
    expect(w.loads).toMatchObject({ pages: 1, counts: 1 });
  });

  it('honours @skip and @include: a skipped page is not loaded', async () => {
    const w = world();
    const doc = 'query ($skip: Boolean!) { things { totalCount edges @skip(if: $skip) { node { name } } } }';
    expect(await run(w, doc, { skip: true })).toEqual({ data: { things: { totalCount: 3 } } });
    expect(w.loads).toMatchObject({ pages: 0, counts: 1 });
    const shown = (await run(w, doc, { skip: false })) as ExecutionResult;
    expect((shown.data as { things: { edges: unknown[] } }).things.edges).toHaveLength(2);
    expect(w.loads.pages).toBe(1);
  });

  it('loads the pages of sibling connections in one batch', async () => {
    const w = world();
    const answer = (await run(w, '{ holders { id things { edges { node { name } } } } }')) as ExecutionResult;
    expect((answer.data as { holders: Array<{ things: { edges: unknown[] } }> }).holders.map((h) => h.things.edges.length)).toEqual([2, 2, 2]);
    expect(w.loads.batches).toEqual([['a', 'b', 'c']]);
  });

  it('reports a failed page as an error of the connection field, in the answer', async () => {
    const w = world();
    const answer = (await run(w, '{ things(fail: true) { totalCount edges { node { name } } } }')) as ExecutionResult;
    expect(answer.data).toBeNull();
    expect(answer.errors?.map((e) => ({ message: e.message, path: e.path }))).toEqual([{ message: 'the page of root failed', path: ['things'] }]);
  });
});
