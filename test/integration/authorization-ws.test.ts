import { graphQLSchema } from '../../src/app';
import { connectWs, type WsClient } from '../helpers/ws';
import { documentFor, rootFields } from './authorization/graphql-documents';
import { callers, matrix, type Caller } from './authorization/matrix';
import { authCode, codeFor, matrixWorld } from './authorization/world';

// The WebSocket cells of the authorization matrix: GraphQL subscriptions over graphql-ws (the table:
// authorization/matrix.ts).
const world = matrixWorld();
const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
});

describe('WebSocket: every subscription root field has a row', () => {
  it('the subscription root fields are exactly the rows', async () => {
    const fields = rootFields(await graphQLSchema(), ['subscription']);
    expect(fields.filter((f) => !(f in matrix.subscriptions)).sort()).toEqual([]);
    expect(
      Object.keys(matrix.subscriptions)
        .filter((f) => !fields.includes(f))
        .sort(),
    ).toEqual([]);
  });
});

describe('GraphQL subscriptions', () => {
  it.each(Object.keys(matrix.subscriptions))('%s', async (name) => {
    const { w, tokens } = world;
    const schema = await graphQLSchema();
    const actual = {} as Record<Caller, string>;
    const wanted = {} as Record<Caller, string>;
    for (const c of callers) {
      const { query, variables } = documentFor(w, schema, name);
      const ws = connectWs(w.server.url, tokens[c]);
      sockets.push(ws);
      const sub = ws.subscribe(query, variables);
      const first = await sub.next(400).catch(() => null); // nothing within 400 ms: subscribed and waiting
      actual[c] = first ? authCode(first.errors as never) : 'allowed';
      sub.dispose();
      wanted[c] = codeFor(matrix.subscriptions[name]![c]);
    }
    expect(actual).toEqual(wanted);
  });
});
