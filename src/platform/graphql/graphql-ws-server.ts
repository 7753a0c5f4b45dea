import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import { performance } from 'node:perf_hooks';
import WebSocket, { type WebSocketServer } from 'ws';
import type { LiveWriter } from '../context';
import { keepAliveSweep } from './keep-alive';

/**
 * What our graphql-ws server keeps of a connection: the socket and the caller's IP address, plus what
 * `onConnect` adds (the viewer, the token hash). graphql-ws's own `useServer` keeps the upgrade request
 * (headers, raw headers, parser state) for the socket's whole life; nothing here needs it after the upgrade.
 */
export interface WsConnection {
  readonly socket: WebSocket;
  readonly ip: string;
}

/** Admits or refuses a socket by its IP address when it opens (ws-caps.ts); `close` gives its place back. */
export interface SocketGate {
  open(ip: string): { code: number; reason: string } | null;
  close(ip: string): void;
}

export interface GraphQLWsServer {
  /** Closes every socket with 1001 Going away and stops the server (the caller cuts stragglers). */
  dispose(): Promise<void>;
}

/**
 * A `ws` socket as `sendCoalesced` uses it: the TCP socket under it (`_socket`: not in ws's types, present
 * since ws 1), and the turn of the event loop in which it was last sent something (a property of ours:
 * `turn`, or `-turn` once corked in that turn).
 */
const LAST_TURN = Symbol('last turn');
type Sending = WebSocket & { _socket?: { cork(): void; uncork(): void }; [LAST_TURN]?: number };

/** Turns of the event loop (`process.nextTick` boundaries) in which something was sent, counted. */
let turn = 1;
let turnEnding = false;
function endTurn(): void {
  turn += 1;
  turnEnding = false;
}
function uncorkSocket(socket: Sending): void {
  socket._socket?.uncork();
}

/**
 * Sends `data` on `socket`; a second and later message for that socket in the same turn of the event loop
 * leave together in one write at the turn's end. A fan-out hands one socket an event for each of its
 * subscriptions (up to 100), and a burst of refused subscribes gets an error each; written one by one,
 * each was its own system call. The first message goes at once: most sockets get one message per event,
 * and corking each of them (with a WeakSet to know which) cost a fan-out about 1 µs per socket.
 */
export function sendCoalesced(socket: WebSocket, data: string): void {
  const sending = socket as Sending;
  if (!turnEnding) {
    turnEnding = true;
    process.nextTick(endTurn);
  }
  const last = sending[LAST_TURN];
  if (last === turn) {
    const raw = sending._socket;
    if (raw) {
      sending[LAST_TURN] = -turn;
      raw.cork();
      process.nextTick(uncorkSocket, sending);
    }
  } else if (last !== -turn) sending[LAST_TURN] = turn;
  socket.send(data);
}

/**
 * One connection as graphql-ws's `makeServer` sees it: an object with its methods on the prototype, and
 * the socket listeners are shared functions that find it by socket, so a connection costs no closures.
 */
class Transport {
  /** graphql-ws's message handler (`onMessage`). */
  handle: ((data: string) => Promise<void>) | null = null;
  /** What `server.opened` returned: to call when the socket closes. */
  closed: ((code?: number, reason?: string) => Promise<void>) | null = null;

  constructor(private readonly socket: WebSocket) {}

  get protocol(): string {
    return this.socket.protocol;
  }

  send(data: string): void {
    if (this.socket.readyState === WebSocket.OPEN) sendCoalesced(this.socket, data);
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  onMessage(handle: (data: string) => Promise<void>): void {
    this.handle = handle;
  }
}

/** Sockets pinged by the keep-alive sweep that have not answered yet, with when they were pinged. */
type Awaiting = WeakMap<WebSocket, number>;

function logInternal(what: string, err: unknown): void {
  console.error(`Internal error ${what}`, err);
}

/**
 * graphql-ws (the `graphql-transport-ws` protocol, from graphql-ws's transport-agnostic `makeServer`) on a
 * `ws` server: what `useServer` from `graphql-ws/use/ws` does, with three differences that matter for
 * a server holding thousands of idle subscribers:
 * - the upgrade request is dropped after the connection opens (only the IP address is kept);
 * - one keep-alive sweep for all sockets, spread over every `keepAliveMs` (keep-alive.ts; at its next visit,
 *   a socket whose ping went unanswered for half a period or more is terminated), instead of an interval, a
 *   timeout and a pong listener per socket;
 * - a message is handed to the socket without waiting for its write callback: `ws` writes in order, and a
 *   failed write closes the socket, so graphql-ws's per-message promise chain waits for nothing useful.
 */
export function serveGraphQLWs<P extends Record<string, unknown> | undefined, E extends object>(
  options: ServerOptions<P, WsConnection & E>,
  wss: WebSocketServer,
  keepAliveMs: number,
  gate?: SocketGate,
): GraphQLWsServer {
  const server = makeServer(options);
  wss.options.handleProtocols = handleProtocols;
  const awaitingPong: Awaiting = new WeakMap();
  const transports = new WeakMap<WebSocket, Transport>();

  const sweep =
    keepAliveMs > 0 && Number.isFinite(keepAliveMs)
      ? keepAliveSweep(wss.clients, keepAliveMs, (socket) => {
          if (socket.readyState !== WebSocket.OPEN) return;
          const pinged = awaitingPong.get(socket);
          if (pinged !== undefined) {
            // Visits are about a period apart; one that comes early (the sockets grew, so its share did)
            // leaves the ping at least half a period to be answered.
            if (performance.now() - pinged >= keepAliveMs / 2) socket.terminate();
            return;
          }
          awaitingPong.set(socket, performance.now());
          socket.ping();
        })
      : null;

  // Shared listeners (`this` is the socket): no closures per socket for what needs none.
  function onPong(this: WebSocket): void {
    awaitingPong.delete(this);
  }
  function onSocketError(this: WebSocket, err: Error): void {
    // A client's protocol error (e.g. a message over maxPayload): ws has already closed with the right code.
    if (String((err as { code?: unknown }).code).startsWith('WS_ERR_')) return;
    logInternal('emitted on a WebSocket socket', err);
    this.close(CloseCode.InternalServerError, 'Internal server error');
  }

  function onSocketMessage(this: WebSocket, data: WebSocket.RawData): void {
    transports
      .get(this)
      ?.handle?.(String(data))
      .catch((err: unknown) => {
        logInternal('while handling a message', err);
        this.close(CloseCode.InternalServerError, 'Internal server error');
      });
  }
  const gatedIps = new WeakMap<WebSocket, string>();
  function onGatedClose(this: WebSocket): void {
    const ip = gatedIps.get(this);
    if (ip !== undefined) gate?.close(ip);
  }
  function onSocketClose(this: WebSocket, code: number, reason: Buffer): void {
    transports
      .get(this)
      ?.closed?.(code, String(reason))
      .catch((err: unknown) => logInternal('while closing a connection', err));
  }

  wss.once('error', (err) => {
    logInternal('emitted on the WebSocket server', err);
    for (const client of wss.clients) client.close(CloseCode.InternalServerError, 'Internal server error');
  });

  wss.on('connection', (socket, request) => {
    socket.once('error', onSocketError);
    const ip = request.socket.remoteAddress ?? 'unknown';
    const refused = gate?.open(ip);
    if (refused) {
      // Before graphql-ws sees it: a socket over its IP's cap costs no graphql-ws state at all.
      socket.close(refused.code, refused.reason);
      return;
    }
    if (gate) {
      gatedIps.set(socket, ip);
      socket.once('close', onGatedClose);
    }
    socket.on('pong', onPong);
    // The extra starts with what every operation may read; `onConnect` adds the rest to the same object.
    const extra = { socket, ip } as WsConnection & E;
    const transport = new Transport(socket);
    transports.set(socket, transport);
    transport.closed = server.opened(transport, extra);
    socket.on('message', onSocketMessage);
    socket.once('close', onSocketClose);
  });

  return {
    async dispose() {
      sweep?.stop();
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/**
 * The `next` messages of one subscription, written straight to its socket: exactly the text graphql-ws
 * sends (`{"id","type":"next","payload"}`), for streams that computed their payload themselves.
 */
export class SocketNextWriter implements LiveWriter {
  private readonly prefix: string;

  constructor(
    private readonly socket: WebSocket,
    id: string,
  ) {
    this.prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  }

  next(payloadJson: string): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    sendCoalesced(this.socket, this.prefix + payloadJson + '}');
    return true;
  }
}
