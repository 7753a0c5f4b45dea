import { performance } from 'node:perf_hooks';

/**
 * Delivering one event to many local subscribers without holding the event loop (one
 * layout write to 150,000 anonymous subscriptions stalled the server 12.6 s). Handing an event to a
 * subscriber resolves its waiting `next()`; the subscriber's own work (access checks, execution, the
 * socket write) then runs in the microtasks that follow, up to its first real wait. A synchronous loop
 * over every subscriber runs all of that in one go, however many they are.
 *
 * So an event is handed out in slices: a slice of subscribers, then `setImmediate`, so that timers, I/O
 * and other requests run between slices, then the next slice. The slice size adapts so that a slice and
 * the work it sets off take about `sliceMs`: halved when a slice took longer, doubled when it took less
 * than half. Events go out in the order they were published: the next event starts once the previous one
 * reached every subscriber it had when it was published. The first slice is handed out at once, so a
 * small fan-out costs no extra turn of the loop.
 */

/** Target duration of one slice and the work it sets off, in ms (a request waits at most about this long). */
export const FANOUT_SLICE_MS = 4;
const SLICE_MIN = 1;
const SLICE_MAX = 4096;
const SLICE_START = 64;

/** Yields to the event loop (timers and I/O run) and resumes. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const turns: Array<() => void> = [];
let releasing = false;

function releaseOne(): void {
  const next = turns.shift();
  // Scheduled from a check-phase callback, the next release runs in the next turn, after its I/O.
  if (turns.length > 0) setImmediate(releaseOne);
  else releasing = false;
  next?.();
}

/**
 * Waits for a turn of the event loop of its own: one waiter is let go per turn. Answers that became ready
 * together (ten list reads returning from PostgreSQL at once) then finish one per turn, with every other
 * request's I/O handled in between, instead of back to back in one long turn. Costs one turn of latency.
 */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    turns.push(resolve);
    if (!releasing) {
      releasing = true;
      setImmediate(releaseOne);
    }
  });
}

/**
 * For a loop that does its work synchronously (the inbox hub's direct writes): `due()` says when the
 * loop has run `sliceMs` since its last yield; `await yieldToLoop()` then, and `restart()`.
 */
export class SliceClock {
  private started = performance.now();
  private count = 0;

  constructor(private readonly sliceMs = FANOUT_SLICE_MS) {}

  /** Checked every few calls only (reading the clock costs more than one cheap iteration). */
  due(): boolean {
    if ((++this.count & 7) !== 0) return false;
    return performance.now() - this.started >= this.sliceMs;
  }

  restart(): void {
    this.started = performance.now();
    this.count = 0;
  }
}

type Done = IteratorReturnResult<undefined>;
const done: Done = { done: true, value: undefined };

/** One subscriber of one topic: an async iterator over the events handed to it, queued until read. */
class Subscriber<V> implements AsyncIterableIterator<V> {
  private items: V[] = [];
  private waiter: ((result: IteratorResult<V, undefined>) => void) | null = null;
  closed = false;

  constructor(private readonly unsubscribe: (s: Subscriber<V>) => void) {}

  push(value: V): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter({ done: false, value });
    } else this.items.push(value);
  }

  next(): Promise<IteratorResult<V, undefined>> {
    if (this.items.length > 0) return Promise.resolve({ done: false, value: this.items.shift()! });
    if (this.closed) return Promise.resolve(done);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  return(): Promise<Done> {
    if (!this.closed) {
      this.closed = true;
      this.items = [];
      this.unsubscribe(this);
      const waiter = this.waiter;
      this.waiter = null;
      waiter?.(done);
    }
    return Promise.resolve(done);
  }

  throw(error?: unknown): Promise<Done> {
    void this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

interface Delivery {
  subscribers: Subscriber<unknown>[];
  payload: unknown;
  next: number;
}

/**
 * Topics of in-process events, each delivered to its subscribers in slices (see above). The same calls as
 * `createPubSub` of @graphql-yoga/subscription: `publish(topic, payload)` and `subscribe(topic)`.
 */
export class SlicedPubSub<Topics extends { [topic: string]: [unknown] }> {
  private readonly topics = new Map<keyof Topics, Set<Subscriber<unknown>>>();
  private readonly pending: Delivery[] = [];
  private sliceSize = SLICE_START;
  private scheduled = false;
  private sliceStarted = 0;

  constructor(private readonly sliceMs = FANOUT_SLICE_MS) {}

  subscribe<T extends keyof Topics>(topic: T): AsyncIterableIterator<Topics[T][0]> {
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    const subscriber = new Subscriber<unknown>((s) => {
      set.delete(s);
      if (set.size === 0 && this.topics.get(topic) === set) this.topics.delete(topic);
    });
    set.add(subscriber);
    return subscriber as AsyncIterableIterator<Topics[T][0]>;
  }

  publish<T extends keyof Topics>(topic: T, payload: Topics[T][0]): void {
    const set = this.topics.get(topic);
    if (!set || set.size === 0) return;
    this.pending.push({ subscribers: [...set], payload, next: 0 });
    if (this.scheduled) return; // a fan-out is under way: this event follows it
    this.slice();
  }

  /** Hands out one slice, then schedules the next one after a turn of the loop. */
  private slice(): void {
    this.sliceStarted = performance.now();
    let budget = this.sliceSize;
    while (budget > 0 && this.pending.length > 0) {
      const delivery = this.pending[0]!;
      const end = Math.min(delivery.subscribers.length, delivery.next + budget);
      for (let i = delivery.next; i < end; i++) delivery.subscribers[i]!.push(delivery.payload);
      budget -= end - delivery.next;
      delivery.next = end;
      if (end === delivery.subscribers.length) this.pending.shift();
    }
    if (this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.afterSlice());
  }

  /** The previous slice's work (its microtasks) has run: size the next slice by how long that took. */
  private afterSlice(): void {
    this.scheduled = false;
    const took = performance.now() - this.sliceStarted;
    if (took > this.sliceMs) this.sliceSize = Math.max(SLICE_MIN, this.sliceSize >> 1);
    else if (took < this.sliceMs / 2) this.sliceSize = Math.min(SLICE_MAX, this.sliceSize << 1);
    if (this.pending.length > 0) this.slice();
  }
}
