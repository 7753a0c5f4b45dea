import { LiveQueue } from '../../../src/platform/live';

describe('LiveQueue', () => {
  it('hands over everything queued, in order, and waits when empty', async () => {
    const q = new LiveQueue<number>(10);
    q.push(1);
    q.push(2);
    expect(await q.take()).toEqual([1, 2]);
    const pending = q.take();
    q.push(3);
    expect(await pending).toEqual([3]);
  });

  it('drops everything and reports an overflow once when more than max items wait', async () => {
    const q = new LiveQueue<number>(2);
    q.push(1);
    q.push(2);
    q.push(3); // over the limit: the queue empties itself rather than grow
    q.push(4);
    expect(q.takeOverflow()).toBe(true);
    expect(q.takeOverflow()).toBe(false);
    expect(await q.take()).toEqual([4]);
  });

  it('wakes a waiting consumer on overflow even when nothing is left to hand over', async () => {
    const q = new LiveQueue<number>(0);
    const pending = q.take();
    q.push(1);
    expect(await pending).toEqual([]);
    expect(q.takeOverflow()).toBe(true);
  });

  it('answers null once closed, also to a consumer already waiting, and ignores later pushes', async () => {
    const q = new LiveQueue<number>(10);
    const pending = q.take();
    q.close();
    expect(await pending).toBeNull();
    q.push(1);
    expect(await q.take()).toBeNull();
  });
});
