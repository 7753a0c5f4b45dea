import WebSocket from 'ws';
import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 2: WebSocket use is capped per IP address and per account, not only per token and per
 * socket. Real sockets from several loopback addresses (127.0.0.x; the server takes the client's address
 * from the TCP connection, as for HTTP: no proxy is trusted), with small caps so that a test reaches them.
 */
let server: TestServer;
let blueprintId: string;
const open: WebSocket[] = [];

const caps = {
  wsConnectionsPerIp: 4,
  wsAnonymousConnectionsPerIp: 2,
  wsConnectionsPerAccount: 3,
  wsSubscriptionsPerIp: 5,
  wsSubscriptionsPerAccount: 3,
};

beforeAll(async () => {
  server = await startTestServer({ limits: caps });
  blueprintId = (await createBlueprint(server.rest, await server.rest.agentToken('caps-owner'))).id;
}, 120_000);

afterAll(async () => {
  for (const s of open) s.terminate();
  await server.close();
});

/** A raw graphql-transport-ws socket from `localAddress`, its messages queued. */
class RawSocket {
  readonly messages: any[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | null = null;
  /** The HTTP answer that refused the upgrade (no WebSocket was opened), if one did. */
  refusedUpgrade: { status: number; contentType: string | undefined; body: any } | null = null;

  constructor(readonly socket: WebSocket) {
    socket.on('unexpected-response', (request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        this.refusedUpgrade = { status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: JSON.parse(text) };
        this.closed = { code: 1006, reason: '' };
        request.destroy();
        this.wake();
        socket.emit('refused');
      });
    });
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.wake();
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The first queued message `match` accepts (removed from the queue), or null once the socket is closed. */
  async take(match: (m: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.messages.findIndex(match);
      if (i >= 0) return this.messages.splice(i, 1)[0];
      if (this.closed) return null;
      if (Date.now() > deadline) throw new Error('no such message in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  subscribe(id: string): void {
    this.socket.send(
      JSON.stringify({
        id,
        type: 'subscribe',
        payload: { query: 'subscription($id: ID!) { blueprintActivity(id: $id) { kind } }', variables: { id: blueprintId } },
      }),
    );
  }

  /** The refusal of operation `id`: its `error` message's first error. */
  async refusal(id: string): Promise<any> {
    const m = await this.take((x) => x.id === id && (x.type === 'error' || x.type === 'next'));
    expect(m?.type).toBe('error');
    return m.payload[0];
  }
}

/** Opens a socket from `localAddress` and sends connection_init: the socket once acknowledged, or how it was closed. */
async function connect(localAddress: string, token?: string): Promise<RawSocket> {
  const socket = new WebSocket(server.url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws', { localAddress });
  open.push(socket);
  const raw = new RawSocket(socket);
  await new Promise<void>((resolve) => {
    socket.once('open', () => resolve());
    socket.once('close', () => resolve());
    socket.once('refused', () => resolve());
  });
  if (raw.closed) return raw;
  socket.send(JSON.stringify({ type: 'connection_init', payload: token ? { authorization: `Bearer ${token}` } : {} }));
  await raw.take((m) => m.type === 'connection_ack');
  return raw;
}

function expectAcked(raw: RawSocket) {
  expect(raw.closed).toBeNull();
}

function expectRefused(raw: RawSocket, reason: RegExp) {
  expect(raw.closed).toMatchObject({ code: 4429 });
  expect(raw.closed!.reason).toMatch(reason);
}

/**
 * Every subscriber in `running` receives activity events (it is running, not refused). A subscription is
 * live once the server has read its blueprint, which the client is not told: star and unstar until each
 * has received one.
 */
async function expectRunning(running: Array<[RawSocket, string]>) {
  const token = await server.rest.agentToken('starrer');
  let pending = running;
  for (let round = 0; round < 20 && pending.length > 0; round++) {
    const res = await server.rest[round % 2 ? 'delete' : 'post'](`/api/blueprints/${blueprintId}/star`, { token });
    expect(res.status).toBe(200);
    const received = await Promise.all(pending.map(([raw, id]) => raw.take((m) => m.id === id && m.type === 'next', 1000).catch(() => null)));
    for (const m of received) if (m) expect(m.payload.data.blueprintActivity.kind).toMatch(/STARRED|UNSTARRED/);
    pending = pending.filter((_, i) => received[i] === null);
  }
  expect(pending.map(([, id]) => id)).toEqual([]);
}

/**
 * A place freed by a close or a `complete` is given back when the server has processed it, which the
 * client does not see: try again (a fresh socket or operation id each time) until the server admits it.
 */
async function eventually<T>(attempt: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const result = await attempt();
    if (result !== null) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('never admitted');
}

/** Subscribes on `raw` until an attempt is not refused at once; the id of the running operation. */
async function subscribeEventually(raw: RawSocket, prefix: string): Promise<string> {
  let n = 0;
  return eventually(async () => {
    const id = `${prefix}-${n++}`;
    raw.subscribe(id);
    const refused = await raw.take((m) => m.id === id && m.type === 'error', 300).catch(() => null);
    return refused ? null : id;
  });
}

async function closeAll(...sockets: RawSocket[]) {
  await Promise.all(
    sockets.map(
      (raw) =>
        new Promise<void>((resolve) => {
          if (raw.closed) return resolve();
          raw.socket.once('close', () => resolve());
          raw.socket.close(1000);
        }),
    ),
  );
}

it('caps anonymous sockets per IP: the next one is closed with 4429; another IP and a signed-in socket are unaffected', async () => {
  const a = await connect('127.0.0.11');
  const b = await connect('127.0.0.11');
  expectAcked(a);
  expectAcked(b);
  expectRefused(await connect('127.0.0.11'), /At most 2 anonymous connections per IP address/);
  const other = await connect('127.0.0.12');
  expectAcked(other);
  const signedIn = await connect('127.0.0.11', await server.rest.agentToken('same-ip'));
  expectAcked(signedIn);
  await closeAll(b);
  await eventually(async () => {
    const again = await connect('127.0.0.11'); // a closed socket gives its place back
    return again.closed ? null : again;
  });
});

it('caps every socket per IP from the upgrade, before it says who it is: one more is answered 429 in the error shape, with no handshake', async () => {
  const held = [];
  for (let i = 0; i < caps.wsConnectionsPerIp; i++) held.push(await connect('127.0.0.21', await server.rest.agentToken(`ip-${i}`)));
  held.forEach(expectAcked);
  const refused = await connect('127.0.0.21', await server.rest.agentToken('one-more'));
  expect(refused.refusedUpgrade).toEqual({
    status: 429,
    contentType: 'application/json; charset=utf-8',
    body: { error: { code: 'RATE_LIMITED', message: 'At most 4 connections per IP address', details: { max_connections_per_ip: 4 } } },
  });
  expectAcked(await connect('127.0.0.22', await server.rest.agentToken('elsewhere')));
  await closeAll(held[0]!);
  // The closed socket's place is given back: the IP may open one again.
  await eventually(async () => {
    const again = await connect('127.0.0.21', await server.rest.agentToken('after-close'));
    return again.closed ? null : again;
  });
  await closeAll(...held.slice(1));
});

it('caps sockets per account across its tokens; another account is unaffected', async () => {
  const person = await server.rest.signUp();
  const tokens = [];
  for (let i = 0; i < caps.wsConnectionsPerAccount + 1; i++) tokens.push(await server.rest.accountToken(person.token, 'read', `t${i}`));
  const held = [];
  // One socket per token and per address: neither the per-token nor the per-IP cap is what refuses.
  for (let i = 0; i < caps.wsConnectionsPerAccount; i++) held.push(await connect(`127.0.0.${31 + i}`, tokens[i]));
  held.forEach(expectAcked);
  expectRefused(await connect('127.0.0.39', tokens[caps.wsConnectionsPerAccount]), /At most 3 connections per account/);
  // That token, revoked now, while its account is still at the cap: refused for the cap, not as a bad token
  // (4403), since a token last seen for an account at its cap is refused before it is looked up.
  const listed = await server.rest.get('/api/account/tokens?limit=100', { token: person.token });
  const last = listed.body.items.find((t: { name: string }) => t.name === `t${caps.wsConnectionsPerAccount}`);
  expect((await server.rest.delete(`/api/account/tokens/${last.id}`, { token: person.token })).status).toBe(204);
  expectRefused(await connect('127.0.0.40', tokens[caps.wsConnectionsPerAccount]), /At most 3 connections per account/);
  const stranger = await server.rest.signUp();
  expectAcked(await connect('127.0.0.39', stranger.token));
  await closeAll(...held);
});

it('caps operations per account across sockets and tokens with a graphql-ws error; another account is unaffected; completing one frees a place', async () => {
  const person = await server.rest.signUp();
  const first = await connect('127.0.0.41', await server.rest.accountToken(person.token, 'read', 'one'));
  const second = await connect('127.0.0.42', await server.rest.accountToken(person.token, 'read', 'two'));
  first.subscribe('a');
  first.subscribe('b');
  second.subscribe('c');
  await expectRunning([
    [first, 'a'],
    [first, 'b'],
    [second, 'c'],
  ]);
  second.subscribe('d');
  expect(await second.refusal('d')).toMatchObject({
    message: expect.stringMatching(/At most 3 operations may run at once per account/),
    extensions: { code: 'VALIDATION_FAILED', details: { max_subscriptions_per_account: 3 } },
  });
  expectAcked(second); // the socket stays open
  const stranger = await connect('127.0.0.42', (await server.rest.signUp()).token);
  stranger.subscribe('s');
  await expectRunning([[stranger, 's']]);
  first.socket.send(JSON.stringify({ id: 'a', type: 'complete' }));
  await expectRunning([[second, await subscribeEventually(second, 'e')]]);
  await closeAll(first, second, stranger);
});

it('caps operations per IP over all its sockets; another IP is unaffected', async () => {
  // Each socket its own agent (blueprintActivity needs a token): only the IP is shared.
  const x = await connect('127.0.0.51', await server.rest.agentToken('x'));
  const y = await connect('127.0.0.51', await server.rest.agentToken('y'));
  const ids = ['1', '2', '3', '4', '5'];
  expectAcked(x);
  expectAcked(y);
  ids.forEach((id, i) => (i % 2 ? y : x).subscribe(id));
  await expectRunning(ids.map((id, i) => [i % 2 ? y : x, id]));
  y.subscribe('6');
  expect(await y.refusal('6')).toMatchObject({ extensions: { code: 'VALIDATION_FAILED', details: { max_subscriptions_per_ip: 5 } } });
  const z = await connect('127.0.0.52', await server.rest.agentToken('z'));
  z.subscribe('7');
  await expectRunning([[z, '7']]);
  // A closed socket gives back its operations: the IP may subscribe again.
  await closeAll(x);
  await expectRunning([[y, await subscribeEventually(y, '8')]]);
  await closeAll(y, z);
});

it('refuses an operation at the per-IP cap before its document is parsed or checked', async () => {
  // Two agents (each under its account cap of 3), one IP.
  const x = await connect('127.0.0.61', await server.rest.agentToken('x2'));
  const y = await connect('127.0.0.61', await server.rest.agentToken('y2'));
  expectAcked(x);
  expectAcked(y);
  const ids = ['1', '2', '3', '4', '5'];
  ids.forEach((id, i) => (i % 2 ? y : x).subscribe(id));
  await expectRunning(ids.map((id, i) => [i % 2 ? y : x, id]));
  // A document that does not parse: at the cap, the answer is the cap, not the syntax error.
  x.socket.send(JSON.stringify({ id: '6', type: 'subscribe', payload: { query: 'subscription { nope(' } }));
  expect(await x.refusal('6')).toMatchObject({ extensions: { code: 'VALIDATION_FAILED', details: { max_subscriptions_per_ip: 5 } } });
  await closeAll(x, y);
});
