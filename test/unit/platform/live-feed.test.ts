import type { RequestContext } from '../../../src/platform/context';
import { defaultLimits } from '../../../src/platform/config';
import { AppError } from '../../../src/platform/errors';
import { StreamEnd } from '../../../src/platform/live/live';
import { LiveFeed, type DurableReader, type FeedRules } from '../../../src/platform/live/live-feed';

/**
 * The live engine's per-subscriber feed: its bounded queue, overflow, closing, durable re-reads, visibility
 * and the direct path. Anonymous contexts (no token to re-check), so no database is involved.
 */
function context(liveQueueMax = 10, writes?: string[]): RequestContext {
  return {
    config: { limits: { ...defaultLimits, liveQueueMax } },
    tokenHash: null,
    em: { clear: () => undefined },
    loaders: { clear: () => undefined },
    ...(writes ? { liveWriter: { next: (payload: string) => (writes.push(payload), true) } } : {}),
  } as unknown as RequestContext;
}

const value = async <T>(feed: LiveFeed<T>) => (await feed.next()).value;

/** Durable rows kept in memory: items are their own cursors. */
function rows(items: number[]): DurableReader<number> {
  return {
    cursorOf: (item) => BigInt(item),
    latest: async () => String(Math.max(0, ...items)),
    after: async (_ctx, _receiver, cursor, limit) => items.filter((i) => i > Number(cursor)).slice(0, limit),
  };
}

describe('LiveFeed (the live engine per subscriber)', () => {
  it('hands over everything queued, in order, and waits when empty', async () => {
    const feed = new LiveFeed<number>(context(), {});
    feed.push(1);
    feed.push(2);
    expect(await value(feed)).toBe(1);
    expect(await value(feed)).toBe(2);
    const pending = feed.next();
    feed.push(3);
    expect((await pending).value).toBe(3);
  });

  it('ends a stream without durable rows with CONFLICT once more than max events wait', async () => {
    const feed = new LiveFeed<number>(context(2), {});
    feed.push(1);
    feed.push(2);
    feed.push(3); // over the limit: the queue empties itself rather than grow
    feed.push(4);
    const end = await value(feed);
    expect(end).toBeInstanceOf(StreamEnd);
    expect((end as StreamEnd).error.code).toBe('CONFLICT');
    expect((await feed.next()).done).toBe(true);
  });

  it('wakes a waiting consumer on overflow even when nothing is left to hand over', async () => {
    const feed = new LiveFeed<number>(context(0), {});
    const pending = feed.next();
    feed.push(1);
    expect((await pending).value).toBeInstanceOf(StreamEnd);
  });

  it('re-reads a durable stream from its cursor after an overflow: every item once, in order', async () => {
    const stored = [1, 2, 3, 4, 5];
    const feed = new LiveFeed<number>(context(2), { replay: rows(stored) }, 'r', '1');
    await feed.position();
    feed.push(2, true);
    feed.push(3, true);
    feed.push(4, true); // overflow: dropped, re-read from the cursor instead
    const got = [await value(feed), await value(feed), await value(feed), await value(feed)];
    expect(got).toEqual([2, 3, 4, 5]);
    feed.push(5, true); // already sent
    feed.push(6, true);
    expect(await value(feed)).toBe(6);
  });

  it('answers done once closed, also to a consumer already waiting, ignores later pushes and stops listening once', async () => {
    const feed = new LiveFeed<number>(context(), {});
    let stopped = 0;
    feed.onClose = () => (stopped += 1);
    const pending = feed.next();
    feed.close();
    expect((await pending).done).toBe(true);
    feed.push(1);
    expect((await feed.next()).done).toBe(true);
    await feed.return();
    expect(stopped).toBe(1);
  });

  it('ends with UNAUTHENTICATED when the token is revoked, and with the sight error when the subject went out of sight', async () => {
    const revoked = new LiveFeed<number>(context(), {});
    revoked.revoke();
    expect(((await value(revoked)) as StreamEnd).error.code).toBe('UNAUTHENTICATED');
    const rules: FeedRules<number> = { sight: async (_ctx, n) => (n < 0 ? new AppError('NOT_FOUND', 'gone') : n * 10), visibleToAll: (n) => n === 7 };
    const feed = new LiveFeed<number>(context(), rules);
    feed.push(1);
    feed.push(7); // visible to all: no sight
    feed.push(-1);
    expect([await value(feed), await value(feed)]).toEqual([10, 7]);
    expect(((await value(feed)) as StreamEnd).error.code).toBe('NOT_FOUND');
  });

  it('writes checked, visible-to-all events of an idle feed directly, and queues the others in order', async () => {
    const writes: string[] = [];
    const frames = { encode: (n: number) => (n === 5 ? null : `{"data":${n}}`) };
    const feed = new LiveFeed<number>(context(10, writes), { replay: rows([]), visibleToAll: (n) => n !== 2 }, 'r', null, frames);
    await feed.position();
    const pending = feed.next(); // parked: idle
    await Promise.resolve();
    feed.push(1, true);
    expect(writes).toEqual(['{"data":1}']);
    feed.push(1, true); // already sent
    feed.push(2, true); // not visible to all: the normal path
    feed.push(4, true); // queued behind it, to keep the order
    expect(writes).toEqual(['{"data":1}']);
    expect((await pending).value).toBe(2);
    expect(await value(feed)).toBe(4);
    const next = feed.next();
    await Promise.resolve();
    feed.push(5, true); // the encoder declines: the normal path
    expect((await next).value).toBe(5);
    expect(writes).toEqual(['{"data":1}']);
  });
});
