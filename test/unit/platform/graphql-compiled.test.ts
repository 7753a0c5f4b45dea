import { GraphQLError, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { CompiledDocuments } from '../../../src/platform/graphql/graphql-compiled';

class Fault extends Error {}

const Query = new GraphQLObjectType({
  name: 'Query',
  fields: {
    hello: { type: GraphQLString, resolve: () => 'world' },
    slow: { type: GraphQLString, resolve: async () => 'later' },
    fails: {
      type: GraphQLString,
      resolve: () => {
        throw new Fault('the database is gone');
      },
    },
    refuses: {
      type: GraphQLString,
      resolve: () => {
        throw new GraphQLError('no', { extensions: { code: 'FORBIDDEN' } });
      },
    },
  },
});
const Subscription = new GraphQLObjectType({
  name: 'Subscription',
  fields: { ticks: { type: GraphQLString, subscribe: async function* () {}, resolve: (v: unknown) => String(v) } },
});
const schema = new GraphQLSchema({ query: Query, subscription: Subscription });

describe('CompiledDocuments', () => {
  it('compiles each document and operation once and runs it', async () => {
    const compiled = new CompiledDocuments(schema);
    const document = parse('query A { hello } query B { slow }');
    const a = compiled.compiledFor(document, 'A');
    expect(a).not.toBeNull();
    expect(compiled.compiledFor(document, 'A')).toBe(a);
    expect(compiled.compiledFor(document, 'B')).not.toBe(a);
    expect(compiled.execute({ schema, document, operationName: 'A' })).toEqual({ data: { hello: 'world' } });
    expect(await compiled.execute({ schema, document, operationName: 'B' })).toEqual({ data: { slow: 'later' } });
  });

  it('leaves to graphql-js what does not compile: an unknown operation name, an aliased subscription root', async () => {
    const compiled = new CompiledDocuments(schema);
    const document = parse('query A { hello } query B { hello }');
    expect(compiled.compiledFor(document, 'Nope')).toBeNull();
    const answer = (await compiled.execute({ schema, document, operationName: 'Nope' })) as ExecutionResult;
    expect(answer.errors?.[0]?.message).toBe('Unknown operation named "Nope".');
    expect(compiled.compiledFor(document, undefined)).toBeNull(); // two operations and no name: graphql-js says so
    expect(compiled.compiledFor(parse('subscription { t: ticks }'), undefined)).toBeNull();
    expect(compiled.compiledFor(parse('subscription { ticks }'), undefined)?.subscribe).toBeDefined();
  });

  it('interprets a document no cache keeps, and answers it the same', async () => {
    const compiled = new CompiledDocuments(schema);
    const once = parse('{ hello slow }');
    compiled.interpretOnly(once);
    expect(compiled.compiledFor(once, undefined)).toBeNull();
    expect(await compiled.execute({ schema, document: once })).toEqual({ data: { hello: 'world', slow: 'later' } });
    expect(compiled.compiledFor(parse('{ hello slow }'), undefined)).not.toBeNull();
  });

  it("reports a resolver's error as graphql-js's GraphQLError, with extensions, path, locations and the original error", async () => {
    const compiled = new CompiledDocuments(schema);
    const answer = (await compiled.execute({ schema, document: parse('{ hello fails refuses }') })) as ExecutionResult;
    expect(answer.data).toEqual({ hello: 'world', fails: null, refuses: null });
    const [fails, refuses] = answer.errors!;
    expect(fails).toBeInstanceOf(GraphQLError);
    expect(fails!.extensions).toEqual({});
    expect(fails!.originalError).toBeInstanceOf(Fault);
    expect(fails!.toJSON()).toEqual({ message: 'the database is gone', path: ['fails'], locations: [{ line: 1, column: 9 }] });
    expect(refuses!.extensions).toEqual({ code: 'FORBIDDEN' });
  });
});
