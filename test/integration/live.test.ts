import { BlueprintActivityDocument, BroadcastReceivedDocument, OperationUpdatedDocument, type BroadcastReceivedSubscription } from '../generated/graphql';
import { createBlueprint, createSubmissions, fork } from '../fixtures/blueprints';
import { editPlan, sql } from '../fixtures/history';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { closeCodeFor, connectWs, type Subscription, type WsClient } from '../helpers/ws';

let server: TestServer;
let owner: string;
const leftovers: Array<{ close(): Promise<void> }> = [];

/** A graphql-ws client that is closed after all tests. */
function ws(token?: string, on: TestServer = server): WsClient {
  const client = connectWs(on.url, token);
  leftovers.push(client);
  return client;
}

/** The server registers a subscription asynchronously and sends no acknowledgement; give it a moment. */

const broadcast = async (id: string, message: string, on: TestServer = server) => {
  const res = await on.rest.post(`/api/blueprints/${id}/broadcasts`, { token: owner, body: { message, type: 'changelog', severity: 'breaking' } });
  if (res.status !== 201) throw new Error(`broadcast: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

async function received(sub: Subscription<BroadcastReceivedSubscription>, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = await sub.next();
    if (r.errors) throw new Error(`subscription error: ${JSON.stringify(r.errors)}`);
    out.push(r.data!.broadcastReceived);
  }
  return out;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('owner');
});
afterAll(async () => {
  await Promise.all(leftovers.map((c) => c.close().catch(() => undefined)));
  await server.close();
});

describe('broadcastReceived', () => {
  it('delivers to the forker and the subscriber once each (also when both), never to the sender or a stranger', async () => {
    const [forker, subscriber, both, stranger] = await Promise.all(['forker', 'subscriber', 'both', 'stranger'].map((n) => server.rest.agentToken(n)));
    const bp = await createBlueprint(server.rest, owner, { name: 'Live source' });
    await fork(server.rest, forker, bp.id);
    await fork(server.rest, both, bp.id);
    for (const t of [subscriber, both, owner]) await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: t });
    const subs = Object.fromEntries(
      Object.entries({ forker, subscriber, both, stranger, owner }).map(([name, token]) => [
        name,
        ws(token).subscribe(BroadcastReceivedDocument, { after: '0' }),
      ]),
    );
    const first = await broadcast(bp.id, 'first');
    for (const name of ['forker', 'subscriber', 'both']) {
      const [item] = await received(subs[name]!, 1);
      expect(item).toEqual({
        id: expect.stringMatching(/^\d+$/),
        readAt: null,
        broadcast: { id: first.id, message: 'first', type: 'CHANGELOG', severity: 'BREAKING', sourceBlueprint: { id: bp.id, slug: bp.slug, name: bp.name } },
      });
    }
    // Now certainly live: a second one arrives the same way, and nobody gets anything twice.
    await broadcast(bp.id, 'second');
    for (const name of ['forker', 'subscriber', 'both']) expect((await received(subs[name]!, 1))[0]!.broadcast.message).toBe('second');
    const quiet = await Promise.all(Object.values(subs).map((s) => s.nothingWithin(300)));
    expect(quiet).toEqual([true, true, true, true, true]);
  });

  it('delivers the same rows whether the hub looks its listeners up (few listen here) or reads the whole broadcast (most do)', async () => {
    // A server of its own, so that this test alone decides how many listen: 1 of 9 recipients first (the hub
    // looks that one up), then 3 of 4 of another broadcast (the hub reads all its rows and skips the others).
    const own = await startTestServer();
    try {
      const sender = await own.rest.agentToken('sender');
      const tokens = await Promise.all(Array.from({ length: 9 }, (_, i) => own.rest.agentToken(`recipient ${i}`)));
      const few = await createBlueprint(own.rest, sender, { name: 'Mostly elsewhere' });
      const most = await createBlueprint(own.rest, sender, { name: 'Mostly here' });
      for (const t of tokens) await own.rest.post(`/api/blueprints/${few.id}/subscription`, { token: t });
      for (const t of tokens.slice(0, 4)) await own.rest.post(`/api/blueprints/${most.id}/subscription`, { token: t });
      const send = async (id: string, message: string) => {
        const res = await own.rest.post(`/api/blueprints/${id}/broadcasts`, { token: sender, body: { message, type: 'notice', severity: 'info' } });
        expect(res.status).toBe(201);
        return res.body;
      };
      const inboxIds = async (token: string) =>
        ((await own.rest.get('/api/inbox?limit=100', { token })).body.items as Array<{ id: string; broadcast: { id: string } }>).map((i) => [
          i.broadcast.id,
          i.id,
        ]);

      let mark = liveMark(own);
      const lone = ws(tokens[0], own).subscribe(BroadcastReceivedDocument, {});
      await mark.streaming(1);
      const first = await send(few.id, 'to nine');
      expect(first.recipient_count).toBe(9);
      const [item] = await received(lone, 1);
      expect(item!.broadcast).toMatchObject({ id: first.id, message: 'to nine' });
      expect(await inboxIds(tokens[0]!)).toContainEqual([first.id, item!.id]);

      mark = liveMark(own);
      const listening = [1, 2].map((i) => ws(tokens[i], own).subscribe(BroadcastReceivedDocument, {}));
      await mark.streaming(2);
      const second = await send(most.id, 'to four');
      expect(second.recipient_count).toBe(4);
      for (const [i, sub] of [lone, ...listening].entries()) {
        const [got] = await received(sub, 1);
        expect(got!.broadcast).toMatchObject({ id: second.id, message: 'to four' });
        // Each listener gets its own row of the broadcast, not another recipient's.
        expect(await inboxIds(tokens[i]!)).toContainEqual([second.id, got!.id]);
      }
      expect(await Promise.all([lone, ...listening].map((sub) => sub.nothingWithin(300)))).toEqual([true, true, true]);
    } finally {
      await own.close();
    }
  });

  it('replays exactly the deliveries missed after the last cursor, in order, then continues live without duplicates', async () => {
    const reader = await server.rest.agentToken('reconnecting reader');
    const bp = await createBlueprint(server.rest, owner, { name: 'Reconnect source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    const firstClient = ws(reader);
    const [seen] = await (async () => {
      const sub = firstClient.subscribe(BroadcastReceivedDocument, { after: '0' });
      await broadcast(bp.id, 'm1');
      return received(sub, 1);
    })();
    await firstClient.close();
    await broadcast(bp.id, 'm2');
    await broadcast(bp.id, 'm3');
    const again = ws(reader).subscribe(BroadcastReceivedDocument, { after: seen!.id });
    // These race with the replay: each must arrive exactly once, after m2 and m3.
    await Promise.all(['m4', 'm5', 'm6', 'm7', 'm8'].map((m) => broadcast(bp.id, m)));
    const items = await received(again, 7);
    expect(items.slice(0, 2).map((i) => i.broadcast.message)).toEqual(['m2', 'm3']);
    expect(
      items
        .slice(2)
        .map((i) => i.broadcast.message)
        .sort(),
    ).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
    const ids = items.map((i) => BigInt(i.id));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(ids[0]! > BigInt(seen!.id)).toBe(true);
    expect(await again.nothingWithin(300)).toBe(true);
    const inbox = (await server.rest.get('/api/inbox?limit=100', { token: reader })).body;
    expect(inbox.items.map((i: any) => i.id).reverse()).toEqual([seen!.id, ...items.map((i) => i.id)]);
  });

  it('ends only the revoked receiver of an event with UNAUTHENTICATED, without the delivery; the others of the same event get it', async () => {
    const [revoked, kept] = await Promise.all(['inbox reader to revoke', 'inbox reader kept'].map((n) => server.rest.agentToken(n)));
    const bp = await createBlueprint(server.rest, owner, { name: 'Inbox of a revoked token' });
    for (const t of [revoked, kept]) await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: t });
    const mark = liveMark(server);
    const gone = ws(revoked).subscribe(BroadcastReceivedDocument, {});
    const stays = ws(kept).subscribe(BroadcastReceivedDocument, {});
    await mark.streaming(2);
    await broadcast(bp.id, 'before');
    expect((await received(gone, 1))[0]!.broadcast.message).toBe('before');
    expect((await received(stays, 1))[0]!.broadcast.message).toBe('before');
    await server.rest.delete('/api/agent/sessions/current', { token: revoked });
    await broadcast(bp.id, 'after');
    const ended = await gone.next();
    expect(ended.data?.broadcastReceived ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await received(stays, 1))[0]!.broadcast.message).toBe('after');
    expect(await gone.nothingWithin(200)).toBe(true);
  });

  it('starts after the newest existing delivery when no cursor is given', async () => {
    const reader = await server.rest.agentToken('live-only reader');
    const bp = await createBlueprint(server.rest, owner, { name: 'Live only source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    await broadcast(bp.id, 'old');
    const sub = ws(reader).subscribe(BroadcastReceivedDocument, {});
    expect(await sub.nothingWithin(300)).toBe(true);
    await broadcast(bp.id, 'new');
    expect((await received(sub, 1))[0]!.broadcast.message).toBe('new');
  });

  it('delivers across two server instances on one database, both ways', async () => {
    const other = await startTestServer({ databaseUrl: server.databaseUrl });
    try {
      const reader = await server.rest.agentToken('reader on B');
      const forker = await server.rest.agentToken('forker on A');
      const bp = await createBlueprint(server.rest, owner, { name: 'Cross instance source' });
      await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
      await fork(server.rest, forker, bp.id);
      const onB = ws(reader, other).subscribe(BroadcastReceivedDocument, { after: '0' });
      const onA = ws(forker, server).subscribe(BroadcastReceivedDocument, { after: '0' });
      await broadcast(bp.id, 'sent via A', server);
      expect((await received(onB, 1))[0]!.broadcast.message).toBe('sent via A');
      expect((await received(onA, 1))[0]!.broadcast.message).toBe('sent via A');
      await broadcast(bp.id, 'sent via B', other);
      expect((await received(onB, 1))[0]!.broadcast.message).toBe('sent via B');
      expect((await received(onA, 1))[0]!.broadcast.message).toBe('sent via B');
      // Activity crosses too: a star on A reaches a watcher on B.
      const watcher = await server.rest.agentToken('watcher on B');
      const mark = liveMark(other);
      const watch = ws(watcher, other).subscribe(BlueprintActivityDocument, { id: bp.id });
      await mark.streaming(1);
      await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: reader });
      const star = await watch.next();
      expect(star.data?.blueprintActivity).toMatchObject({ kind: 'STARRED', blueprintId: bp.id, blueprint: { stars: 1 } });
    } finally {
      await Promise.all(leftovers.splice(-3).map((c) => c.close().catch(() => undefined)));
      await other.close();
    }
  });

  it('re-reads from its cursor when the event connection drops, so deliveries whose notification was lost still arrive once', async () => {
    const reader = await server.rest.agentToken('listener drop');
    const bp = await createBlueprint(server.rest, owner, { name: 'Listener drop source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    const sub = ws(reader).subscribe(BroadcastReceivedDocument, { after: '0' });
    await broadcast(bp.id, 'before the drop');
    expect((await received(sub, 1))[0]!.broadcast.message).toBe('before the drop');
    // A delivery committed while nobody listened: its row exists, its notification never arrives.
    await sql(
      server,
      `with b as (insert into broadcast (id, source_blueprint_id, sender_id, message, type, severity, recipient_count)
                  select gen_random_uuid(), ?, owner_id, 'lost notification', 'notice', 'info', 1 from blueprint where id = ? returning id)
       insert into inbox_delivery (broadcast_id, recipient_id)
       select b.id, t.principal_id from b, access_token t where t.token_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')`,
      [bp.id, bp.id, reader],
    );
    expect(await sub.nothingWithin(300)).toBe(true);
    const killed = await sql<{ ok: boolean }>(
      server,
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query = 'listen bw_events'",
    );
    expect(killed.map((k) => k.ok)).toEqual([true]);
    expect((await received(sub, 1))[0]!.broadcast.message).toBe('lost notification');
    await broadcast(bp.id, 'after the drop');
    expect((await received(sub, 1))[0]!.broadcast.message).toBe('after the drop');
    expect(await sub.nothingWithin(300)).toBe(true);
  });

  it('closes a connection whose token is unknown or revoked with 4403', async () => {
    expect(await closeCodeFor(server.url, { authorization: 'Bearer bwa_not-a-real-token' })).toBe(4403);
    const token = await server.rest.agentToken('soon revoked');
    expect((await server.rest.delete('/api/agent/sessions/current', { token })).status).toBe(204);
    expect(await closeCodeFor(server.url, { authorization: `Bearer ${token}` })).toBe(4403);
    expect(await closeCodeFor(server.url, { authorization: 'Basic abc def' })).toBe(4403);
  });

  it('requires a signed-in connection and a well-formed cursor', async () => {
    const anon = await ws().subscribe(BroadcastReceivedDocument, {}).next();
    expect(anon.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const token = await server.rest.agentToken('bad cursor');
    const bad = await ws(token).subscribe(BroadcastReceivedDocument, { after: 'yesterday' }).next();
    expect(bad.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it.each([
    ['revoked', (token: string) => server.rest.delete('/api/agent/sessions/current', { token })],
    [
      'expired',
      (token: string) =>
        sql(server, "update access_token set expires_at = now() - interval '1 second' where token_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')", [
          token,
        ]),
    ],
  ])('stops delivering once the token is %s mid-connection; the inbox row is still written', async (_label, endToken) => {
    const token = await server.rest.agentToken('mid-connection');
    const bp = await createBlueprint(server.rest, owner, { name: 'Revocation source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token });
    const sub = ws(token).subscribe(BroadcastReceivedDocument, { after: '0' });
    await broadcast(bp.id, 'before');
    expect((await received(sub, 1))[0]!.broadcast.message).toBe('before');
    await endToken(token);
    const after = await broadcast(bp.id, 'after');
    const ended = await sub.next();
    expect(ended.data?.broadcastReceived ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await sub.nothingWithin(200)).toBe(true);
    expect(sub.completed).toBe(true);
    const rows = await sql(server, 'select 1 from inbox_delivery where broadcast_id = ?', [after.id]);
    expect(rows).toHaveLength(1);
  });
});

describe('blueprintActivity', () => {
  it('delivers forks, stars, changelog entries and versions of a public blueprint to any signed-in watcher', async () => {
    const forker = await server.rest.agentToken('activity forker');
    const bp = await createBlueprint(server.rest, owner, { name: 'Busy blueprint' });
    const watcher = await server.rest.agentToken('activity watcher');
    const mark = liveMark(server);
    const watch = ws(watcher).subscribe(BlueprintActivityDocument, { id: bp.id });
    await mark.streaming(1);
    const child = await fork(server.rest, forker, bp.id);
    const forked = (await watch.next()).data!.blueprintActivity;
    expect(forked).toMatchObject({ kind: 'FORKED', blueprintId: bp.id, subjectId: child.id, fork: { id: child.id, slug: child.slug }, changelogEntry: null });
    expect(forked.actor?.id).toBe(child.owner_id);
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: forker });
    expect((await watch.next()).data!.blueprintActivity).toMatchObject({ kind: 'STARRED', blueprint: { id: bp.id, stars: 1 }, fork: null });
    const entry = (await server.rest.post(`/api/blueprints/${bp.id}/changelog`, { token: owner, body: { title: 'Release notes', body: '' } })).body;
    expect((await watch.next()).data!.blueprintActivity).toMatchObject({
      kind: 'CHANGELOG',
      subjectId: entry.id,
      changelogEntry: { id: entry.id, title: 'Release notes' },
    });
    await editPlan(server, bp.id, (plan) => plan.steps[0]!.acceptance.push('reviewed'));
    expect((await watch.next()).data!.blueprintActivity).toMatchObject({ kind: 'VERSION', versionNumber: 2 });
    expect(await watch.nothingWithin(200)).toBe(true);
  });

  it("does not deliver a private blueprint's activity to strangers", async () => {
    const stranger = await server.rest.agentToken('activity stranger');
    const secret = await createBlueprint(server.rest, owner, { name: 'Private activity', visibility: 'private' });
    const denied = await ws(stranger).subscribe(BlueprintActivityDocument, { id: secret.id }).next();
    expect(denied.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // Anonymous callers may subscribe to nothing but a public architecture (docs/api.md, Authentication).
    const anonymous = await ws().subscribe(BlueprintActivityDocument, { id: secret.id }).next();
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const mark = liveMark(server);
    const mine = ws(owner).subscribe(BlueprintActivityDocument, { id: secret.id });
    await mark.streaming(1);
    await server.rest.post(`/api/blueprints/${secret.id}/star`, { token: owner });
    expect((await mine.next()).data!.blueprintActivity.kind).toBe('STARRED');
  });

  it("ends the stream with UNAUTHENTICATED, without the event, once the watcher's token is revoked", async () => {
    const token = await server.rest.agentToken('watcher to revoke');
    const bp = await createBlueprint(server.rest, owner, { name: 'Watched by a revoked token' });
    const mark = liveMark(server);
    const sub = ws(token).subscribe(BlueprintActivityDocument, { id: bp.id });
    await mark.streaming(1);
    await server.rest.delete('/api/agent/sessions/current', { token });
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: owner });
    const ended = await sub.next();
    expect(ended.data?.blueprintActivity ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await sub.nothingWithin(200)).toBe(true);
  });

  it('ends the stream with NOT_FOUND, without the event, when the blueprint turns private mid-subscription', async () => {
    const stranger = await server.rest.agentToken('late stranger');
    const bp = await createBlueprint(server.rest, owner, { name: 'Turning private' });
    const mark = liveMark(server);
    const theirs = ws(stranger).subscribe(BlueprintActivityDocument, { id: bp.id });
    const mine = ws(owner).subscribe(BlueprintActivityDocument, { id: bp.id });
    await mark.streaming(2);
    await sql(server, "update blueprint set visibility = 'private' where id = ?", [bp.id]);
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: owner });
    const ended = await theirs.next();
    expect(ended.data?.blueprintActivity ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await theirs.nothingWithin(200)).toBe(true);
    expect((await mine.next()).data!.blueprintActivity.kind).toBe('STARRED');
  });
});

describe('operationUpdated', () => {
  it("delivers the caller's own operation's progress and hides others' operations", async () => {
    const token = await server.rest.agentToken('operator');
    const other = await server.rest.agentToken('nosy');
    const start = (await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'create', params: {} } })).body;
    const denied = await ws(other).subscribe(OperationUpdatedDocument, { id: start.operation_id }).next();
    expect(denied.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const sub = ws(token).subscribe(OperationUpdatedDocument, { id: start.operation_id });
    // The opening event is the current state; after it the subscription is live.
    expect((await sub.next()).data?.operationUpdated).toMatchObject({ id: start.operation_id, status: 'ACTIVE', step: 1 });
    await server.rest.post(`/api/tools/operations/${start.operation_id}/submit`, { token, body: { token: start.token, submission: createSubmissions()[0] } });
    expect((await sub.next()).data?.operationUpdated).toMatchObject({ id: start.operation_id, status: 'ACTIVE', step: 2 });
    await server.rest.post(`/api/tools/operations/${start.operation_id}/cancel`, { token });
    expect((await sub.next()).data?.operationUpdated).toMatchObject({ status: 'CANCELLED' });
  });
});

describe('limits', () => {
  it('rejects a subscription deeper than the query depth limit', async () => {
    const token = await server.rest.agentToken('deep');
    let selection = '{ id }';
    for (let i = 0; i < 16; i++) selection = `{ forkedFrom ${selection} }`;
    const doc = `subscription { broadcastReceived { broadcast { sourceBlueprint ${selection} } } }`;
    const res = await ws(token).subscribe(doc).next();
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(res.errors?.[0]?.message).toMatch(/depth/i);
  });

  it('rejects a subscription over the node limit', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Costly' });
    const nested = (inner: string) => `forks(first: 100) { edges { node { ${inner} } } }`;
    const doc = `subscription($id: ID!) { blueprintActivity(id: $id) { blueprint { ${nested(nested(nested('id')))} } } }`;
    const res = await ws(owner).subscribe(doc, { id: bp.id }).next();
    expect(res.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(res.errors?.[0]?.message).toMatch(/nodes; at most 500000/);
  });
});
