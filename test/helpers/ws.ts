import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * A graphql-ws subscription whose results are queued as they arrive, so a test can `next()` them in order
 * without missing any that came early.
 */
export class Subscription<T> {
  private readonly queue: ExecutionResult<T>[] = [];
  private readonly waiters: Array<(r: ExecutionResult<T>) => void> = [];
  error: unknown;
  completed = false;
  dispose: () => void = () => undefined;

  push(result: ExecutionResult<T>): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(result);
    else this.queue.push(result);
  }

  /** The next result, or a rejection after `timeoutMs`. */
  next(timeoutMs = 5000): Promise<ExecutionResult<T>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`no subscription result within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (r: ExecutionResult<T>) => {
        clearTimeout(timer);
        resolve(r);
      };
      this.waiters.push(done);
    });
  }

  /** Resolves true if nothing arrives within `ms` (for "a stranger receives nothing"). */
  async nothingWithin(ms: number): Promise<boolean> {
    if (this.queue.length > 0) return false;
    try {
      await this.next(ms);
      return false;
    } catch {
      return true;
    }
  }
}

export interface WsClient {
  client: Client;
  subscribe<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V): Subscription<T>;
  close(): Promise<void>;
}

/** Connects a graphql-ws client to `/graphql` with an optional bearer token in `connectionParams`. */
export function connectWs(baseUrl: string, token?: string): WsClient {
  const client = createClient({
    url: baseUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
  return {
    client,
    subscribe<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V) {
      const sub = new Subscription<T>();
      sub.dispose = client.subscribe<T>(
        { query: typeof document === 'string' ? document : print(document), variables: variables as Record<string, unknown> | undefined },
        {
          next: (r) => sub.push(r as ExecutionResult<T>),
          error: (e) => {
            sub.error = e;
            sub.push({ errors: Array.isArray(e) ? e : [{ message: String((e as { reason?: string }).reason ?? e) }] } as ExecutionResult<T>);
          },
          complete: () => {
            sub.completed = true;
          },
        },
      );
      return sub;
    },
    async close() {
      await client.dispose();
    },
  };
}

/** Opens a raw graphql-transport-ws socket and resolves with the close code the server sends. */
export function closeCodeFor(baseUrl: string, connectionParams: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    const timer = setTimeout(() => reject(new Error('socket was not closed')), 5000);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
    socket.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    socket.on('error', reject);
  });
}

/**
 * Opens a raw graphql-transport-ws socket, sends `connection_init` and resolves with what the server did:
 * acknowledged the connection, or closed it with a code. The socket is closed either way.
 */
export function connectionOutcome(baseUrl: string, connectionParams: Record<string, unknown>): Promise<{ acked: true } | { acked: false; code: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('no connection_ack and no close within 5 s'));
    }, 5000);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type?: string }).type !== 'connection_ack') return;
      clearTimeout(timer);
      socket.close(1000);
      resolve({ acked: true });
    });
    socket.on('close', (code) => {
      clearTimeout(timer);
      resolve({ acked: false, code });
    });
    socket.on('error', reject);
  });
}
