import { readsWholeBroadcast } from '../../../src/broadcasts/inbox-live';

describe('readsWholeBroadcast', () => {
  it('reads the whole broadcast when at least a quarter of its recipients listen here', () => {
    expect(readsWholeBroadcast(2000, 2000)).toBe(true);
    expect(readsWholeBroadcast(4, 1)).toBe(true);
    expect(readsWholeBroadcast(4, 3)).toBe(true);
  });

  it('looks the listeners up when fewer do, or when the notification does not say how many recipients there are', () => {
    expect(readsWholeBroadcast(9, 1)).toBe(false);
    expect(readsWholeBroadcast(100_000, 2000)).toBe(false);
    expect(readsWholeBroadcast(undefined, 2000)).toBe(false);
  });
});
