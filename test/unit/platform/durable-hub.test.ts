import type { RequestContext } from '../../../src/platform/context';
import { defaultLimits } from '../../../src/platform/config';
import { durableStream, type DurableTopic } from '../../../src/platform/live/durable-live';
import type { DurableReader } from '../../../src/platform/live/live-feed';

/**
 * The live engine's hub (durable-live.ts) with an in-memory topic: who gets an event handed over
 * directly, and who re-reads from its cursor instead, when subscriptions come and go while the event's
 * items are being read. Anonymous listeners (no token to check), so no database is involved.
 */

/** The bus as the hub uses it: one topic, events pushed by the test. */
class Bus {
  private readonly waiting: Array<(r: IteratorResult<unknown>) => void> = [];
  private readonly queued: unknown[] = [];
  publish(event: unknown): void {
    const wake = this.waiting.shift();
    if (wake) wake({ value: event, done: false });
    else this.queued.push(event);
  }
  subscribe(): AsyncIterableIterator<unknown> {
    const iterator: AsyncIterableIterator<unknown> = {
      next: () => (this.queued.length ? Promise.resolve({ value: this.queued.shift(), done: false }) : new Promise((resolve) => this.waiting.push(resolve))),
      return: async () => ({ value: undefined, done: true }),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }
  onResume(): () => void {
    return () => undefined;
  }
  onEvent(): void {}
}

/** Rows of receiver 'r' kept in memory: items are their own cursors. */
const rows: number[] = [];
const reader: DurableReader<number> = {
  cursorOf: (item) => BigInt(item),
  latest: async () => String(Math.max(0, ...rows)),
  after: async (_ctx, _receiver, cursor, limit) => rows.filter((i) => i > Number(cursor)).slice(0, limit),
};

const frames = { encode: (n: number) => `{"data":${n}}` };

/** A topic whose read the test releases: each event is one item for every listening receiver. */
function topic(): { topic: DurableTopic<'inbox.delivered', number>; release(): void; reading: Promise<void> } {
  let release!: () => void;
  let started!: () => void;
  const reading = new Promise<void>((resolve) => (started = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    reading,
    topic: {
      name: `hub-test-${Math.random()}`,
      topic: 'inbox.delivered',
      replay: reader,
      visibleToAll: () => true,
      frames: () => frames,
      async read(_em, event, listening) {
        started();
        await gate;
        const item = Number((event as unknown as { broadcastId: string }).broadcastId);
        return [...listening.values()].map((entry) => [entry, item]);
      },
    },
  };
}

function context(bus: Bus, writes: string[]): RequestContext {
  return {
    config: { limits: { ...defaultLimits, liveQueueMax: 10 } },
    tokenHash: null,
    events: bus,
    em: { fork: () => ({}), clear: () => undefined },
    loaders: { clear: () => undefined },
    liveWriter: { next: (payload: string) => (writes.push(payload), true) },
  } as unknown as RequestContext;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DurableHub (the live engine per instance and topic)', () => {
  beforeEach(() => rows.splice(0));

  it("hands an event directly to each of a receiver's subscriptions that were listening when it came", async () => {
    const bus = new Bus();
    const { topic: t, release } = topic();
    const [a, b] = [[], []] as string[][];
    // With `info`, the stream takes the topic's encoder (the direct path); the fake encoder ignores it.
    const feeds = [await durableStream(context(bus, a), t, 'r', null, {} as never), await durableStream(context(bus, b), t, 'r', null, {} as never)];
    const waits = feeds.map((f) => f.next());
    rows.push(1);
    bus.publish({ broadcastId: '1' });
    release();
    await settle();
    expect([a, b]).toEqual([['{"data":1}'], ['{"data":1}']]);
    for (const f of feeds) await f.return!();
    for (const wait of waits) expect((await wait).done).toBe(true);
  });

  it('makes a subscription that started during the read re-read from its cursor instead', async () => {
    const bus = new Bus();
    const { topic: t, release, reading } = topic();
    const early: string[] = [];
    const first = await durableStream(context(bus, early), t, 'r', null);
    void first.next();
    rows.push(1);
    bus.publish({ broadcastId: '1' });
    await reading;
    // Started while the event's items were being read, from a cursor before the row: not handed the item
    // (its token was not checked), it re-reads and finds the row itself, once.
    const late = await durableStream(context(bus, []), t, 'r', '0');
    release();
    expect((await late.next()).value).toBe(1);
    // From then on it is handed events like any other, and item 1 never comes twice.
    const more = late.next();
    rows.push(2);
    bus.publish({ broadcastId: '2' });
    expect((await more).value).toBe(2);
    await first.return!();
    await late.return!();
  });

  it('skips a receiver whose subscriptions all left during the read, and re-reads for one that came back', async () => {
    const bus = new Bus();
    const { topic: t, release, reading } = topic();
    const gone = await durableStream(context(bus, []), t, 'r', null);
    const goneNext = gone.next();
    rows.push(1);
    bus.publish({ broadcastId: '1' });
    await reading;
    await gone.return!();
    expect((await goneNext).done).toBe(true);
    const back = await durableStream(context(bus, []), t, 'r', '0');
    release();
    expect((await back.next()).value).toBe(1);
    await back.return!();
  });
});
