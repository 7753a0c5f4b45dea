import { metricsOf } from '../../src/platform/http/metrics';
import type { TestServer } from './server';

type Counted = 'subscriptionsStarted' | 'subscriptionsEnded';

function count(server: TestServer, what: Counted): number {
  const metrics = metricsOf(server.app.http);
  if (!metrics) throw new Error('the test server has no metrics registered');
  return metrics[what];
}

async function until(server: TestServer, what: Counted, atLeast: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (count(server, what) < atLeast) {
    if (Date.now() > deadline) throw new Error(`${what} stayed at ${count(server, what)}, short of ${atLeast}, for ${timeoutMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A mark of how many graphql-ws subscriptions `server` has started streaming so far. After opening `n`
 * more, `await mark.streaming(n)` resolves once the server streams them: they listen, and an event
 * published from then on reaches them. The readiness signal tests wait on instead of a fixed sleep.
 */
export function liveMark(server: TestServer): { streaming(n: number, timeoutMs?: number): Promise<void>; ended(n: number, timeoutMs?: number): Promise<void> } {
  const started = count(server, 'subscriptionsStarted');
  const ended = count(server, 'subscriptionsEnded');
  return {
    streaming: (n, timeoutMs = 10_000) => until(server, 'subscriptionsStarted', started + n, timeoutMs),
    /** Resolves once `n` more subscriptions stopped streaming (completed by the client, ended, or closed). */
    ended: (n, timeoutMs = 10_000) => until(server, 'subscriptionsEnded', ended + n, timeoutMs),
  };
}
