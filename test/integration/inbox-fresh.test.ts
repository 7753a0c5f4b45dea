import { createBlueprint, fork } from '../fixtures/blueprints';
import { freshBroadcastsUsed, inboxLive } from '../../src/broadcasts/inbox-live';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';

/**
 * The instance that writes a broadcast hands its own live subscribers what its write statement answered
 * (the broadcast, its source, every delivery row) instead of reading the rows back (inbox-live.ts,
 * `rememberFreshBroadcast`). What it hands out must be exactly what the read would have answered.
 */
let writer: TestServer;
let other: TestServer;
let owner: string;
let readers: string[];
let sourceId: string;
const sockets: WsClient[] = [];

beforeAll(async () => {
  writer = await startTestServer();
  other = await startTestServer({ databaseUrl: writer.databaseUrl });
  owner = await writer.rest.agentToken('fresh-owner');
  readers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => writer.rest.agentToken(`fresh-reader-${n}`)));
  sourceId = (await createBlueprint(writer.rest, owner, { name: 'Fresh “source” ✓', description: 'with\nlines and ünïcode' })).id;
  await fork(writer.rest, readers[0]!, sourceId);
  for (const token of readers.slice(1)) expect((await writer.rest.post(`/api/blueprints/${sourceId}/subscription`, { token })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) await s.close();
  await other.close();
  await writer.close();
});

async function principalOf(token: string): Promise<string> {
  return (await writer.gql.ok<{ viewer: { id: string } }, Record<string, never>>('{ viewer { id } }', {}, token)).viewer.id;
}

it('answers the same items from the write as the database read does, field for field', async () => {
  const ids = await Promise.all(readers.map(principalOf));
  const listening = new Map(ids.map((id) => [id, id]));
  const sent = await writer.rest.post(`/api/blueprints/${sourceId}/broadcasts`, {
    token: owner,
    body: { message: 'kept — “as written”', type: 'changelog', severity: 'breaking' },
  });
  expect(sent.status).toBe(201);
  const event = { broadcastId: sent.body.id as string, recipientCount: sent.body.recipient_count as number };
  expect(event.recipientCount).toBe(readers.length);

  // Nobody listens live, so the write's answer is still kept: the first read takes it, the second reads.
  const used = freshBroadcastsUsed();
  const em = writer.app.deps.orm.em.fork();
  const fromWrite = await inboxLive.read(em, event, listening);
  expect(freshBroadcastsUsed()).toBe(used + 1);
  const fromDatabase = await inboxLive.read(em, event, listening);
  expect(freshBroadcastsUsed()).toBe(used + 1);

  expect(fromWrite).toHaveLength(readers.length);
  const byReceiver = (items: typeof fromWrite) => [...items].sort((x, y) => x[0].localeCompare(y[0]));
  expect(byReceiver(fromWrite)).toEqual(byReceiver(fromDatabase));
  expect(fromWrite[0]![1].source).toMatchObject({ id: sourceId, name: 'Fresh “source” ✓' });
  expect(fromWrite[0]![1].readAt).toBeNull();

  // Only the receivers asked about get items.
  const one = new Map([[ids[2]!, ids[2]!]]);
  await writer.rest.post(`/api/blueprints/${sourceId}/broadcasts`, { token: owner, body: { message: 'for one', type: 'notice', severity: 'info' } });
  const last = (await writer.rest.get(`/api/inbox`, { token: readers[2] })).body.items[0];
  const items = await inboxLive.read(em, { broadcastId: last.broadcast.id, recipientCount: readers.length }, one);
  expect(items.map(([receiver, item]) => [receiver, item.id])).toEqual([[ids[2], last.id]]);
});

it('delivers live the same frame on the writing instance as on an instance that reads it back', async () => {
  const document = `subscription { broadcastReceived {
    id readAt
    broadcast { id message type severity createdAt sourceBlueprintId sourceBlueprint { id slug name description visibility } }
  } }`;
  const token = readers[1]!;
  const onWriter = connectWs(writer.url, token);
  const onOther = connectWs(other.url, token);
  sockets.push(onWriter, onOther);
  const [writerMark, otherMark] = [liveMark(writer), liveMark(other)];
  const subs = [onWriter.subscribe<any, any>(document), onOther.subscribe<any, any>(document)];
  await Promise.all([writerMark.streaming(1), otherMark.streaming(1)]);

  const used = freshBroadcastsUsed();
  const sent = await writer.rest.post(`/api/blueprints/${sourceId}/broadcasts`, {
    token: owner,
    body: { message: 'live one', type: 'notice', severity: 'minor' },
  });
  expect(sent.status).toBe(201);
  const [a, b] = await Promise.all(subs.map((s) => s.next(10_000)));
  expect(a).toEqual(b);
  expect(a.data.broadcastReceived).toMatchObject({ readAt: null, broadcast: { id: sent.body.id, message: 'live one', sourceBlueprint: { id: sourceId } } });
  // Both servers run in this one process and share the kept answers: one of the two hubs took it, the other read.
  expect(freshBroadcastsUsed()).toBe(used + 1);
});
