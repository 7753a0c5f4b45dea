import { BlueprintActivityDocument } from '../generated/graphql';
import { createBlueprint } from '../fixtures/blueprints';
import { sql } from '../fixtures/history';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';
import { hashToken } from '../../src/platform/sql/tokens';
import * as database from '../../src/platform/sql/database';

/**
 * Tokens on live connections (docs/scale.md): an instance remembers the tokens it found valid instead of
 * reading them for every event, and forgets one when a `live.token-changed` event says it changed. That
 * event is written by a trigger on `access_token`, so every way a token stops working ends the streams of
 * its connections at their next event, on every instance: here the listener is on instance B, the
 * revocation and the event happen through instance A or straight in SQL.
 */
let a: TestServer;
let b: TestServer;
let owner: string;
const sockets: WsClient[] = [];

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer({ databaseUrl: a.databaseUrl });
  owner = await a.rest.agentToken('token watcher owner');
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
  await b.close();
  await a.close();
});

/** The names of the prepared statements instance B runs while `during` runs (A runs in this process too). */
async function statementsOnB(during: () => Promise<void>): Promise<string[]> {
  const names: string[] = [];
  const original = database.executePrepared;
  const spy = jest.spyOn(database, 'executePrepared').mockImplementation((em, name, text, params) => {
    if (em.config === b.app.deps.orm.config) names.push(name);
    return original(em, name, text, params);
  });
  try {
    await during();
  } finally {
    spy.mockRestore();
  }
  return names;
}

const star = (id: string) => a.rest.post(`/api/blueprints/${id}/star`, { token: owner });
const unstar = (id: string) => a.rest.delete(`/api/blueprints/${id}/star`, { token: owner });

const ways: Array<[string, (token: string) => Promise<unknown>]> = [
  ['signed out over HTTP on another instance', (token) => a.rest.delete('/api/agent/sessions/current', { token })],
  ['revoked by an operator in SQL', (token) => sql(a, 'update access_token set revoked_at = now() where token_hash = ?', [hashToken(token)])],
  ['expired early in SQL', (token) => sql(a, "update access_token set expires_at = now() - interval '1 second' where token_hash = ?", [hashToken(token)])],
  ['deleted in SQL', (token) => sql(a, 'delete from access_token where token_hash = ?', [hashToken(token)])],
];

describe('tokens of live listeners', () => {
  it.each(ways)('a token %s ends its stream at the next event, after events that did not read it', async (_way, revoke) => {
    const token = await a.rest.agentToken('live token');
    const kept = await a.rest.agentToken('live token kept');
    const bp = await createBlueprint(a.rest, owner, { name: 'Watched for tokens' });
    const mark = liveMark(b);
    const [gone, stays] = [token, kept].map((t) => {
      const socket = connectWs(b.url, t);
      sockets.push(socket);
      return socket.subscribe(BlueprintActivityDocument, { id: bp.id });
    });
    await mark.streaming(2);

    // The first event reads the two tokens once; the next ones are judged from what B remembers.
    expect((await star(bp.id)).status).toBe(200);
    for (const sub of [gone!, stays!]) expect((await sub.next()).data!.blueprintActivity.kind).toBe('STARRED');
    const names = await statementsOnB(async () => {
      expect((await unstar(bp.id)).status).toBe(200);
      for (const sub of [gone!, stays!]) expect((await sub.next()).data!.blueprintActivity.kind).toBe('UNSTARRED');
    });
    // A public blueprint's event needs no read either: nothing at all was read for it.
    expect(names).toEqual([]);

    await revoke(token);
    expect((await star(bp.id)).status).toBe(200);
    const ended = await gone!.next();
    expect(ended.data?.blueprintActivity ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await gone!.nothingWithin(200)).toBe(true);
    expect((await stays!.next()).data!.blueprintActivity.kind).toBe('STARRED');
  });

  it('reads the blueprints of an event that names a private one, and ends the stream of whoever may no longer see it', async () => {
    const stranger = await a.rest.agentToken('private stranger');
    const bp = await createBlueprint(a.rest, owner, { name: 'Going private' });
    const mark = liveMark(b);
    const socket = connectWs(b.url, stranger);
    sockets.push(socket);
    const theirs = socket.subscribe(BlueprintActivityDocument, { id: bp.id });
    await mark.streaming(1);
    expect((await star(bp.id)).status).toBe(200);
    expect((await theirs.next()).data!.blueprintActivity.kind).toBe('STARRED');
    const names = await statementsOnB(async () => {
      expect((await a.rest.patch(`/api/blueprints/${bp.id}`, { token: owner, body: { visibility: 'private' } })).status).toBe(200);
      const ended = await theirs.next();
      expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });
    expect(names).toEqual(['activity_live_guards']);
  });
});
