import net from 'node:net';
import { createBlueprint } from '../fixtures/blueprints';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';

/**
 * The messages a socket gets in one turn of the event loop leave in one write (graphql-ws-server.ts,
 * `sendCoalesced`): one event for a socket's twenty subscriptions was twenty system calls, and a fan-out
 * to thousands of subscriptions spent much of its time in them (bench/abuse's CPU profiles).
 */
let server: TestServer;
let token: string;
let blueprintId: string;
const sockets: WsClient[] = [];
const SUBSCRIPTIONS = 20;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken('coalesced');
  blueprintId = (await createBlueprint(server.rest, token)).id;
}, 60_000);

afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

/** Runs `fn` and counts the socket writes (write or writev) in this process that carry a `next` frame. */
async function countNextWrites(fn: () => Promise<unknown>): Promise<number> {
  const proto = net.Socket.prototype as unknown as Record<string, (...args: any[]) => unknown>;
  const original = { _write: proto._write!, _writev: proto._writev! };
  let writes = 0;
  const carriesNext = (data: unknown) => (typeof data === 'string' || Buffer.isBuffer(data)) && data.includes('"type":"next"');
  proto._write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
    if (carriesNext(chunk)) writes++;
    return original._write.call(this, chunk, ...rest);
  };
  proto._writev = function (this: unknown, chunks: Array<{ chunk: unknown }>, ...rest: unknown[]) {
    if (chunks.some((c) => carriesNext(c.chunk))) writes++; // a corked batch: one write, many messages
    return original._writev.call(this, chunks, ...rest);
  };
  try {
    await fn();
  } finally {
    proto._write = original._write;
    proto._writev = original._writev;
  }
  return writes;
}

it("writes one event for all of a socket's subscriptions in far fewer writes than messages", async () => {
  const mark = liveMark(server);
  const client = connectWs(server.url, token);
  sockets.push(client);
  const subs = Array.from({ length: SUBSCRIPTIONS }, () =>
    client.subscribe<any, any>(`subscription($id: ID!) { blueprintActivity(id: $id) { kind } }`, { id: blueprintId }),
  );
  await mark.streaming(SUBSCRIPTIONS);
  const writes = await countNextWrites(async () => {
    expect((await server.rest.post(`/api/blueprints/${blueprintId}/star`, { token })).status).toBe(200);
    for (const sub of subs) expect((await sub.next(10_000)).data.blueprintActivity.kind).toBe('STARRED');
  });
  expect(writes).toBeGreaterThan(0);
  expect(writes).toBeLessThanOrEqual(SUBSCRIPTIONS / 4);
});
