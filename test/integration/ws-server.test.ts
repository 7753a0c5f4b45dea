import WebSocket from 'ws';
import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { liveMark } from '../helpers/live';

/**
 * Our graphql-ws server (src/platform/graphql/graphql-ws-server.ts, over graphql-ws's `makeServer`) speaks the
 * graphql-transport-ws protocol on raw sockets: every message the server sends is checked here as text.
 */

let server: TestServer;
const leftovers: RawSocket[] = [];

/** A raw graphql-transport-ws socket that queues what it receives, so no message is missed. */
class RawSocket {
  readonly socket: WebSocket;
  private readonly queue: string[] = [];
  private readonly waiters: Array<(m: string) => void> = [];
  readonly closed: Promise<number>;

  constructor(url: string, options: WebSocket.ClientOptions = {}, protocol: string | string[] = 'graphql-transport-ws') {
    this.socket = new WebSocket(url.replace(/^http/, 'ws') + '/graphql', protocol, options);
    this.socket.on('message', (data) => {
      const text = String(data);
      const waiter = this.waiters.shift();
      if (waiter) waiter(text);
      else this.queue.push(text);
    });
    this.closed = new Promise((resolve) => this.socket.on('close', (code) => resolve(code)));
    leftovers.push(this);
  }

  async open(): Promise<this> {
    if (this.socket.readyState !== WebSocket.OPEN) await new Promise((resolve, reject) => this.socket.once('open', resolve).once('error', reject));
    return this;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Opens, sends connection_init and expects connection_ack. */
  async init(token?: string): Promise<this> {
    await this.open();
    this.send({ type: 'connection_init', payload: token ? { authorization: `Bearer ${token}` } : {} });
    expect(JSON.parse(await this.next())).toEqual({ type: 'connection_ack' });
    return this;
  }

  next(timeoutMs = 5000): Promise<string> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(done), 1);
        reject(new Error(`no message within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (m: string) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push(done);
    });
  }

  async nothingWithin(ms: number): Promise<boolean> {
    return this.next(ms).then(
      () => false,
      () => true,
    );
  }
}

beforeAll(async () => {
  server = await startTestServer({ limits: { wsKeepAliveMs: 150 } });
});
afterAll(async () => {
  for (const s of leftovers) s.socket.terminate();
  await server.close();
});

describe('the graphql-transport-ws protocol', () => {
  it('acknowledges connection_init, answers ping with pong (echoing the payload), runs a query to next + complete', async () => {
    const ws = await new RawSocket(server.url).init();
    ws.send({ type: 'ping', payload: { n: 1 } });
    expect(JSON.parse(await ws.next())).toEqual({ type: 'pong', payload: { n: 1 } });
    ws.send({ type: 'ping' });
    expect(JSON.parse(await ws.next())).toEqual({ type: 'pong' });
    ws.send({ id: 'q1', type: 'subscribe', payload: { query: '{ architectures(first: 1) { totalCount } }' } });
    const next = JSON.parse(await ws.next());
    expect(next).toMatchObject({ id: 'q1', type: 'next', payload: { data: { architectures: { totalCount: expect.any(Number) } } } });
    expect(JSON.parse(await ws.next())).toEqual({ id: 'q1', type: 'complete' });
  });

  it('answers an invalid document with an error message and keeps the connection', async () => {
    const ws = await new RawSocket(server.url).init();
    ws.send({ id: 'bad', type: 'subscribe', payload: { query: '{ noSuchField }' } });
    const error = JSON.parse(await ws.next());
    expect(error).toMatchObject({ id: 'bad', type: 'error' });
    expect(error.payload[0].extensions.code).toBe('VALIDATION_FAILED');
    ws.send({ type: 'ping' });
    expect(JSON.parse(await ws.next())).toEqual({ type: 'pong' });
  });

  it('closes with 4401 on a subscribe before connection_init, 4429 on a second connection_init, 4400 on a malformed message', async () => {
    const early = await new RawSocket(server.url).open();
    early.send({ id: 'x', type: 'subscribe', payload: { query: '{ architectures { totalCount } }' } });
    expect(await early.closed).toBe(4401);
    const twice = await new RawSocket(server.url).init();
    twice.send({ type: 'connection_init' });
    expect(await twice.closed).toBe(4429);
    const garbage = await new RawSocket(server.url).init();
    garbage.send('not json');
    expect(await garbage.closed).toBe(4400);
  });

  it('closes with 4403 a connection_init with a bad token, and with 4406 a socket without the subprotocol', async () => {
    const bad = await new RawSocket(server.url).open();
    bad.send({ type: 'connection_init', payload: { authorization: 'Bearer bwa_unknown' } });
    expect(await bad.closed).toBe(4403);
    const wrong = await new RawSocket(server.url, {}, []).open();
    expect(await wrong.closed).toBe(4406);
  });

  it('stops a subscription on complete from the client: nothing more is sent for that id', async () => {
    const owner = await server.rest.agentToken('complete owner');
    const reader = await server.rest.agentToken('complete reader');
    const bp = await createBlueprint(server.rest, owner, { name: 'Completed subscription source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    const ws = await new RawSocket(server.url).init(reader);
    const mark = liveMark(server);
    ws.send({ id: 's1', type: 'subscribe', payload: { query: 'subscription { broadcastReceived { id broadcast { message } } }' } });
    await mark.streaming(1);
    await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner, body: { message: 'one', type: 'notice', severity: 'info' } });
    expect(JSON.parse(await ws.next()).payload.data.broadcastReceived.broadcast.message).toBe('one');
    const completed = liveMark(server);
    ws.send({ id: 's1', type: 'complete' });
    await completed.ended(1);
    await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner, body: { message: 'two', type: 'notice', severity: 'info' } });
    expect(await ws.nothingWithin(400)).toBe(true);
  });
});

describe('keep-alive', () => {
  it('keeps a socket that answers pings and terminates one that stops answering', async () => {
    const answering = await new RawSocket(server.url).init();
    const silent = await new RawSocket(server.url, { autoPong: false }).init();
    let pinged = 0;
    answering.socket.on('ping', () => (pinged += 1));
    // Several sweeps of 150 ms: the silent socket misses one and is cut; the other is pinged each time.
    const code = await silent.closed;
    expect(code).toBe(1006); // terminated: no close frame
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(pinged).toBeGreaterThanOrEqual(2);
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    answering.send({ type: 'ping' });
    expect(JSON.parse(await answering.next())).toEqual({ type: 'pong' });
  });
});

describe('keep-alive spread over a longer period', () => {
  let slow: TestServer;
  beforeAll(async () => {
    // 1 s: ten steps of the sweep per period, so a round of two sockets ends long before the period does.
    slow = await startTestServer({ limits: { wsKeepAliveMs: 1000 } });
  });
  afterAll(async () => {
    await slow.close();
  });

  it('gives a ping the period to be answered, however few the sockets, and still cuts a silent one', async () => {
    const delayed = await new RawSocket(slow.url, { autoPong: false }).init();
    const silent = await new RawSocket(slow.url, { autoPong: false }).init();
    let pinged = 0;
    delayed.socket.on('ping', (data) => {
      pinged += 1;
      setTimeout(() => delayed.socket.pong(data), 300); // slower than a step (100 ms), well within half a period
    });
    const code = await silent.closed;
    expect(code).toBe(1006);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(delayed.socket.readyState).toBe(WebSocket.OPEN);
    expect(pinged).toBeGreaterThanOrEqual(2);
    delayed.send({ type: 'ping' });
    expect(JSON.parse(await delayed.next())).toEqual({ type: 'pong' });
  });
});

describe('live inbox deliveries written directly', () => {
  const plain = `subscription { broadcastReceived {
    __typename id readAt
    broadcast { __typename id message type severity createdAt sourceBlueprintId sourceBlueprint { __typename id slug name } }
  } }`;
  // The same selection through a fragment, with aliases, and (the last) with a directive, which takes graphql's own execution.
  const viaFragment = `subscription { broadcastReceived { ...Item } }
    fragment Item on InboxItem { __typename id readAt
      broadcast { __typename id message type severity createdAt sourceBlueprintId sourceBlueprint { ... on Blueprint { __typename id slug name } } } }`;
  const executed = plain.replace('readAt', 'readAt @include(if: true)');

  it('sends exactly the text graphql execution sends, for plain selections, fragments and aliases alike', async () => {
    const owner = await server.rest.agentToken('direct owner');
    const reader = await server.rest.agentToken('direct reader');
    const bp = await createBlueprint(server.rest, owner, { name: 'Direct delivery source' });
    await server.rest.post(`/api/blueprints/${bp.id}/subscription`, { token: reader });
    const sockets = await Promise.all([plain, viaFragment, executed].map(() => new RawSocket(server.url).init(reader)));
    const mark = liveMark(server);
    [plain, viaFragment, executed].forEach((query, i) => sockets[i]!.send({ id: 'inbox', type: 'subscribe', payload: { query } }));
    await mark.streaming(3);
    for (const message of ['first', 'second']) {
      const sent = await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner, body: { message, type: 'security', severity: 'critical' } });
      expect(sent.status).toBe(201);
      const texts = await Promise.all(sockets.map((s) => s.next()));
      expect(texts[0]).toBe(texts[2]);
      expect(texts[1]).toBe(texts[2]);
      const item = JSON.parse(texts[0]!).payload.data.broadcastReceived;
      expect(item).toEqual({
        __typename: 'InboxItem',
        id: expect.stringMatching(/^\d+$/),
        readAt: null,
        broadcast: {
          __typename: 'Broadcast',
          id: sent.body.id,
          message,
          type: 'SECURITY',
          severity: 'CRITICAL',
          createdAt: new Date(sent.body.created_at).toISOString(),
          sourceBlueprintId: bp.id,
          sourceBlueprint: { __typename: 'Blueprint', id: bp.id, slug: bp.slug, name: bp.name },
        },
      });
    }
    const aliased = await new RawSocket(server.url).init(reader);
    const aliasMark = liveMark(server);
    aliased.send({
      id: 'a',
      type: 'subscribe',
      payload: { query: 'subscription { inbox: broadcastReceived { delivery: id b: broadcast { text: message } } }' },
    });
    await aliasMark.streaming(1);
    await server.rest.post(`/api/blueprints/${bp.id}/broadcasts`, { token: owner, body: { message: 'third', type: 'notice', severity: 'info' } });
    const item = JSON.parse(await aliased.next());
    expect(item).toEqual({ id: 'a', type: 'next', payload: { data: { inbox: { delivery: expect.stringMatching(/^\d+$/), b: { text: 'third' } } } } });
  });
});
