import {
  BlueprintSubscribedDocument,
  InboxDocument,
  MarkInboxReadDocument,
  SendBroadcastDocument,
  SubscribeToBlueprintDocument,
  UnsubscribeFromBlueprintDocument,
} from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
let owner: string;
let forker: string;
let subscriber: string;
let both: string;
let stranger: string;
let source: any;

const send = (token: string | undefined, id: string, body: unknown) => server.rest.post(`/api/blueprints/${id}/broadcasts`, { token, body });
const inbox = async (token: string, query = '') => (await server.rest.get(`/api/inbox${query}`, { token })).body;
const broadcastCount = async () => Number((await sql<{ n: string }>(server, 'select count(*) as n from broadcast'))[0]!.n);
const deliveryCount = async () => Number((await sql<{ n: string }>(server, 'select count(*) as n from inbox_delivery'))[0]!.n);

beforeAll(async () => {
  server = await startTestServer();
  [owner, forker, subscriber, both, stranger] = await Promise.all(['owner', 'forker', 'subscriber', 'both', 'stranger'].map((n) => server.rest.agentToken(n)));
  source = await createBlueprint(server.rest, owner, { name: 'Broadcast source' });
  await fork(server.rest, forker, source.id);
  await fork(server.rest, both, source.id);
  await fork(server.rest, owner, source.id); // the sender's own fork must not make it a recipient
  for (const token of [subscriber, both, owner]) expect((await server.rest.post(`/api/blueprints/${source.id}/subscription`, { token })).status).toBe(200);
});
afterAll(() => server.close());

describe('sending', () => {
  it('delivers one inbox row to each forker and subscriber, once each, never to the sender or a stranger', async () => {
    const res = await send(owner, source.id, { message: 'v2 renames the api module', type: 'changelog', severity: 'breaking' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      source_blueprint_id: source.id,
      message: 'v2 renames the api module',
      type: 'changelog',
      severity: 'breaking',
      recipient_count: 3,
    });
    for (const token of [forker, subscriber, both]) {
      const box = await inbox(token);
      expect(box.total).toBe(1);
      expect(box.items).toEqual([
        {
          id: expect.stringMatching(/^\d+$/),
          read_at: null,
          broadcast: {
            id: res.body.id,
            source_blueprint_id: source.id,
            message: 'v2 renames the api module',
            type: 'changelog',
            severity: 'breaking',
            created_at: res.body.created_at,
          },
        },
      ]);
    }
    expect((await inbox(owner)).total).toBe(0);
    expect((await inbox(stranger)).total).toBe(0);
  });

  it('reaches direct forks only, not forks of forks', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Direct only' });
    const child = await fork(server.rest, forker, bp.id);
    await fork(server.rest, stranger, child.id);
    const res = await send(owner, bp.id, { message: 'hi', type: 'notice', severity: 'info' });
    expect(res.body.recipient_count).toBe(1);
  });

  it.each([
    ['an unknown type', { message: 'm', type: 'gossip', severity: 'info' }, 'type'],
    ['an unknown severity', { message: 'm', type: 'notice', severity: 'apocalyptic' }, 'severity'],
    ['a missing message', { type: 'notice', severity: 'info' }, 'message'],
    ['a blank message', { message: '  ', type: 'notice', severity: 'info' }, 'message'],
    ['a missing type', { message: 'm', severity: 'info' }, 'type'],
    ['an unknown field', { message: 'm', type: 'notice', severity: 'info', to: 'all' }, 'to'],
    ['a message over the limit', { message: 'x'.repeat(10_001), type: 'notice', severity: 'info' }, 'message'],
  ])('rejects %s with 400 naming the path and writes nothing', async (_label, body, path) => {
    const [b, d] = [await broadcastCount(), await deliveryCount()];
    const res = await send(owner, source.id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe(path);
    expect([await broadcastCount(), await deliveryCount()]).toEqual([b, d]);
  });

  it('answers 401 to anonymous callers, 403 to non-owners and 404 for a private blueprint, writing nothing', async () => {
    const secret = await createBlueprint(server.rest, owner, { name: 'Secret source', visibility: 'private' });
    const [b, d] = [await broadcastCount(), await deliveryCount()];
    const body = { message: 'm', type: 'notice', severity: 'info' };
    expect((await send(undefined, source.id, body)).status).toBe(401);
    const notOwner = await send(forker, source.id, body);
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error.code).toBe('FORBIDDEN');
    expect((await send(stranger, secret.id, body)).status).toBe(404);
    expect([await broadcastCount(), await deliveryCount()]).toEqual([b, d]);
  });

  it('skips recipients who may no longer read the source (it turned private)', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Soon private' });
    await fork(server.rest, forker, bp.id);
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: stranger });
    await sql(server, "update blueprint set visibility = 'private' where id = ?", [bp.id]);
    const res = await send(owner, bp.id, { message: 'after going private', type: 'notice', severity: 'info' });
    expect(res.status).toBe(201);
    expect(res.body.recipient_count).toBe(0);
  });

  it('writes the broadcast and all its inbox rows with a fixed number of statements (3 recipients or 30)', async () => {
    const small = await createBlueprint(server.rest, owner, { name: 'Three forks' });
    const large = await createBlueprint(server.rest, owner, { name: 'Thirty forks' });
    const tokens = await Promise.all(Array.from({ length: 30 }, (_, i) => server.rest.agentToken(`fan-${i}`)));
    for (const [i, token] of tokens.entries()) {
      if (i < 3) await fork(server.rest, token, small.id);
      await fork(server.rest, token, large.id);
    }
    const body = { message: 'fan-out', type: 'notice', severity: 'minor' };
    const three = await send(owner, small.id, body);
    const thirty = await send(owner, large.id, body);
    expect([three.body.recipient_count, thirty.body.recipient_count]).toEqual([3, 30]);
    const statements = (r: typeof three) => Number(r.headers.get('x-sql-statements'));
    expect(statements(thirty)).toBe(statements(three));
    const rows = await sql<{ n: string }>(server, 'select count(*) as n from inbox_delivery where broadcast_id = ?', [thirty.body.id]);
    expect(Number(rows[0]!.n)).toBe(30);
  });
});

/**
 * Inbox rows have no foreign keys (each would run a trigger per row of a 2,000-recipient send: migration
 * 20261124000200); statement triggers on `broadcast` and `principal` delete them instead, and the
 * principal's trigger takes the sends' lock so that a deletion and a send cannot interleave.
 */
describe('inbox rows of deleted broadcasts and principals', () => {
  const rowsOf = async (column: 'broadcast_id' | 'recipient_id', id: string) =>
    Number((await sql<{ n: string }>(server, `select count(*) as n from inbox_delivery where ${column} = ?`, [id]))[0]!.n);
  /** A principal that only subscribes to `source` (nothing else refers to it, so it can be deleted). */
  const listener = async (name: string) => {
    const session = await server.rest.agentSession(name);
    expect((await server.rest.post(`/api/blueprints/${source.id}/subscription`, { token: session.token })).status).toBe(200);
    return session;
  };

  it('go with their broadcast', async () => {
    const res = await send(owner, source.id, { message: 'soon deleted', type: 'notice', severity: 'info' });
    expect(await rowsOf('broadcast_id', res.body.id)).toBe(res.body.recipient_count);
    await sql(server, 'delete from broadcast where id = ?', [res.body.id]);
    expect(await rowsOf('broadcast_id', res.body.id)).toBe(0);
  });

  it('go with their recipient', async () => {
    const gone = await listener('deleted later');
    await send(owner, source.id, { message: 'to be forgotten', type: 'notice', severity: 'info' });
    expect(await rowsOf('recipient_id', gone.id)).toBe(1);
    await sql(server, 'delete from principal where id = ?', [gone.id]);
    expect(await rowsOf('recipient_id', gone.id)).toBe(0);
  });

  it('are not written for a principal whose deletion commits while the send waits for it', async () => {
    const gone = await listener('deleted during a send');
    const db = await SqlClient.connect(server.databaseUrl);
    try {
      await db.query('begin');
      await db.query('delete from principal where id = $1', [gone.id]);
      let settled = false;
      const sending = send(owner, source.id, { message: 'sent during a deletion', type: 'notice', severity: 'info' }).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false); // the deletion holds the sends' lock
      await db.query('commit');
      const res = await sending;
      expect(res.status).toBe(201);
      expect(await rowsOf('recipient_id', gone.id)).toBe(0);
      expect(await rowsOf('broadcast_id', res.body.id)).toBe(res.body.recipient_count);
    } finally {
      await db.close();
    }
  });

  it('written by a send that holds the lock are deleted once it commits', async () => {
    const gone = await listener('deleted after a send');
    const broadcast = (await send(owner, source.id, { message: 'already delivered', type: 'notice', severity: 'info' })).body;
    const sender = await SqlClient.connect(server.databaseUrl);
    const deleter = await SqlClient.connect(server.databaseUrl);
    try {
      // A send in progress: it holds the lock and has written a row for the principal being deleted.
      await sender.query('begin');
      await sender.query('select pg_advisory_xact_lock(7342001)');
      await sender.query(
        `insert into broadcast (id, source_blueprint_id, sender_id, message, type, severity, recipient_count)
         select gen_random_uuid(), source_blueprint_id, sender_id, 'in flight', type, severity, 1 from broadcast where id = $1 returning id`,
        [broadcast.id],
      );
      await sender.query(`insert into inbox_delivery (broadcast_id, recipient_id) select id, $1 from broadcast where message = 'in flight'`, [gone.id]);
      let deleted = false;
      const deleting = deleter.query('delete from principal where id = $1', [gone.id]).then(() => (deleted = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(deleted).toBe(false); // its trigger waits for the send
      await sender.query('commit');
      await deleting;
      expect(await rowsOf('recipient_id', gone.id)).toBe(0);
    } finally {
      await sender.close();
      await deleter.close();
    }
  });
});

describe('subscriptions', () => {
  it('subscribes and unsubscribes idempotently; an unsubscribed principal receives nothing more', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Sub toggles' });
    const path = `/api/blueprints/${bp.id}/subscription`;
    expect((await server.rest.post(path, { token: stranger })).body).toEqual({ blueprint_id: bp.id, subscribed: true });
    expect((await server.rest.post(path, { token: stranger })).body).toEqual({ blueprint_id: bp.id, subscribed: true });
    expect((await send(owner, bp.id, { message: 'one', type: 'notice', severity: 'info' })).body.recipient_count).toBe(1);
    expect((await server.rest.delete(path, { token: stranger })).body).toEqual({ blueprint_id: bp.id, subscribed: false });
    expect((await server.rest.delete(path, { token: stranger })).body).toEqual({ blueprint_id: bp.id, subscribed: false });
    expect((await send(owner, bp.id, { message: 'two', type: 'notice', severity: 'info' })).body.recipient_count).toBe(0);
  });

  it('answers 401 to anonymous callers and 404 for blueprints the caller cannot see', async () => {
    const secret = await createBlueprint(server.rest, owner, { name: 'Unsubscribable', visibility: 'private' });
    expect((await server.rest.post(`/api/blueprints/${source.id}/subscription`)).status).toBe(401);
    expect((await server.rest.post(`/api/blueprints/${secret.id}/subscription`, { token: stranger })).status).toBe(404);
    expect((await server.rest.delete(`/api/blueprints/${secret.id}/subscription`, { token: stranger })).status).toBe(404);
    const rows = await sql(server, 'select 1 from blueprint_subscription where blueprint_id = ?', [secret.id]);
    expect(rows).toHaveLength(0);
  });

  it('lets a subscriber leave a blueprint that went out of sight', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Left behind' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: stranger });
    await sql(server, "update blueprint set visibility = 'private' where id = ?", [bp.id]);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/subscription`, { token: stranger })).body).toEqual({ blueprint_id: bp.id, subscribed: false });
  });

  it('is reflected by GraphQL subscribeToBlueprint, unsubscribeFromBlueprint and viewerIsSubscribed', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'GraphQL subs' });
    expect((await server.gql.ok(BlueprintSubscribedDocument, { id: bp.id }, stranger)).blueprint!.viewerIsSubscribed).toBe(false);
    expect((await server.gql.ok(SubscribeToBlueprintDocument, { id: bp.id }, stranger)).subscribeToBlueprint).toEqual({ blueprintId: bp.id, subscribed: true });
    expect((await server.gql.ok(BlueprintSubscribedDocument, { id: bp.id }, stranger)).blueprint!.viewerIsSubscribed).toBe(true);
    expect((await server.gql.ok(UnsubscribeFromBlueprintDocument, { id: bp.id }, stranger)).unsubscribeFromBlueprint.subscribed).toBe(false);
    const anon = await server.gql.request(SubscribeToBlueprintDocument, { id: bp.id });
    expect(anon.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('inbox', () => {
  let reader: string;
  let bp: any;
  beforeAll(async () => {
    reader = await server.rest.agentToken('reader');
    bp = await createBlueprint(server.rest, owner, { name: 'Inbox source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    for (const n of [1, 2, 3]) await send(owner, bp.id, { message: `m${n}`, type: 'notice', severity: 'info' });
  });

  it('lists newest first with limit and offset, and filters unread', async () => {
    const all = await inbox(reader);
    expect(all.items.map((i: any) => i.broadcast.message)).toEqual(['m3', 'm2', 'm1']);
    expect(BigInt(all.items[0].id) > BigInt(all.items[1].id)).toBe(true);
    const page = await inbox(reader, '?limit=1&offset=1');
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.items[0].broadcast.message).toBe('m2');
    const marked = await server.rest.post(`/api/inbox/${all.items[1].id}/read`, { token: reader });
    expect(marked.status).toBe(200);
    expect(marked.body.read_at).toEqual(expect.any(String));
    const unread = await inbox(reader, '?unread=true');
    expect(unread.total).toBe(2);
    expect(unread.items.map((i: any) => i.broadcast.message)).toEqual(['m3', 'm1']);
    expect((await server.rest.get('/api/inbox?unread=maybe', { token: reader })).status).toBe(400);
    expect((await server.rest.get('/api/inbox?limit=500', { token: reader })).status).toBe(400);
    expect((await server.rest.get('/api/inbox')).status).toBe(401);
  });

  it('keeps the first read time when marked read again', async () => {
    const [item] = (await inbox(reader)).items;
    const first = await server.rest.post(`/api/inbox/${item.id}/read`, { token: reader });
    const again = await server.rest.post(`/api/inbox/${item.id}/read`, { token: reader });
    expect(again.body.read_at).toBe(first.body.read_at);
  });

  it("answers 404 for another principal's delivery or an id that is not one, changing nothing", async () => {
    const [item] = (await inbox(reader, '?unread=true')).items;
    expect((await server.rest.post(`/api/inbox/${item.id}/read`, { token: stranger })).status).toBe(404);
    expect((await server.rest.post('/api/inbox/abc/read', { token: reader })).status).toBe(404);
    expect((await server.rest.post('/api/inbox/99999999999999999999/read', { token: reader })).status).toBe(404);
    expect((await server.rest.post(`/api/inbox/${item.id}/read`)).status).toBe(401);
    const [row] = await sql<{ read_at: Date | null }>(server, 'select read_at from inbox_delivery where seq = ?', [item.id]);
    expect(row!.read_at).toBeNull();
  });

  it('pages the GraphQL inbox by delivery id, newest first, and marks items read', async () => {
    const page1 = await server.gql.ok(InboxDocument, { first: 2 }, reader);
    expect(page1.inbox.totalCount).toBe(3);
    expect(page1.inbox.edges.map((e) => e.node.broadcast.message)).toEqual(['m3', 'm2']);
    expect(page1.inbox.edges[0]!.cursor).toBe(page1.inbox.edges[0]!.node.id);
    expect(page1.inbox.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(page1.inbox.edges[0]!.node.broadcast.recipientCount).toBeNull(); // only the sender sees it
    expect(page1.inbox.edges[0]!.node.broadcast.sourceBlueprint).toEqual({ id: bp.id, slug: bp.slug, name: bp.name });
    const page2 = await server.gql.ok(InboxDocument, { first: 2, after: page1.inbox.pageInfo.endCursor }, reader);
    expect(page2.inbox.edges.map((e) => e.node.broadcast.message)).toEqual(['m1']);
    expect(page2.inbox.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const unreadBefore = (await server.gql.ok(InboxDocument, { unread: true }, reader)).inbox;
    const read = await server.gql.ok(MarkInboxReadDocument, { id: unreadBefore.edges[0]!.node.id }, reader);
    expect(read.markInboxRead.readAt).toEqual(expect.any(String));
    expect((await server.gql.ok(InboxDocument, { unread: true }, reader)).inbox.totalCount).toBe(unreadBefore.totalCount - 1);
    const bad = await server.gql.request(InboxDocument, { after: 'not-an-id' }, reader);
    expect(bad.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('sends over GraphQL with enum values and shows the sender the recipient count', async () => {
    const res = await server.gql.ok(SendBroadcastDocument, { blueprintId: bp.id, message: 'via graphql', type: 'SECURITY', severity: 'CRITICAL' }, owner);
    expect(res.sendBroadcast).toMatchObject({ message: 'via graphql', type: 'SECURITY', severity: 'CRITICAL', recipientCount: 1, sourceBlueprintId: bp.id });
    const denied = await server.gql.request(SendBroadcastDocument, { blueprintId: bp.id, message: 'x', type: 'NOTICE', severity: 'INFO' }, reader);
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
