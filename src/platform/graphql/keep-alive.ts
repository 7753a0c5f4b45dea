import { performance } from 'node:perf_hooks';
import { SliceClock, yieldToLoop } from '../live/fanout';

/** How often a keep-alive step runs, in ms: each step visits its share of the sockets. */
export const KEEP_ALIVE_STEP_MS = 100;

export interface KeepAliveSweep {
  stop(): void;
}

/**
 * Visits every item of `items` (the server's sockets) once per `periodMs`, spread over the period: every
 * `stepMs` a step visits the next `1 / steps` of them, and a step that runs long yields to the event loop
 * every few ms (fanout.ts). One loop over every socket at once held the event loop 44 ms at 2,000 sockets
 * (a ping is a socket write each), so a broadcast that came during it waited that long; at 150,000 it
 * would have been seconds.
 *
 * A round is one pass over `items` in their order (a `Set` iterates live: a socket added during the round
 * is visited in it, a deleted one is skipped). The next round starts at the first step at least `periodMs`
 * after the last one started (a round of a few sockets ends in its first step), so each item is visited
 * about once per `periodMs`. A step that is still yielding when the next one is due finishes its share
 * first; the due one is skipped.
 */
export function keepAliveSweep<T>(items: ReadonlySet<T>, periodMs: number, visit: (item: T) => void, stepMs = KEEP_ALIVE_STEP_MS): KeepAliveSweep {
  const every = Math.max(1, Math.min(stepMs, periodMs));
  const steps = Math.max(1, Math.round(periodMs / every));
  let round: Iterator<T> | null = null;
  /** When the next round may start: a period after the last one started, however fast that one ended. */
  let nextRoundAt = 0;
  let busy = false;

  const step = async (): Promise<void> => {
    if (busy) return;
    let pass = round;
    if (pass === null) {
      const now = performance.now();
      if (now < nextRoundAt) return;
      nextRoundAt = now + periodMs;
      round = pass = items.values();
    }
    busy = true;
    try {
      const clock = new SliceClock();
      for (let budget = Math.ceil(items.size / steps); budget > 0; budget--) {
        const next = pass.next();
        if (next.done) {
          round = null;
          return;
        }
        visit(next.value);
        if (clock.due()) {
          await yieldToLoop();
          clock.restart();
        }
      }
    } catch (err) {
      // The round goes on from the next item at the next step; a throw must not end the sweep.
      console.error('Internal error in a keep-alive step', err);
    } finally {
      busy = false;
    }
  };

  const timer = setInterval(() => void step(), every);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
