import { keepAliveSweep } from '../../../src/platform/graphql/keep-alive';
import { eventually } from '../../helpers/wait';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Visits recorded with the step (timer turn) each came in. */
function recorder() {
  const visits: Array<{ item: number; at: number }> = [];
  let turn = 0;
  const ticker = setInterval(() => (turn += 1), 1);
  return {
    visits,
    visit: (item: number) => visits.push({ item, at: turn }),
    stop: () => clearInterval(ticker),
  };
}

// Timers slip on a loaded machine: each test waits for the visits it counts (`eventually`) rather than for a
// fixed time, and asserts only bounds that load cannot break.
describe('keepAliveSweep', () => {
  it('visits every item once per round, a share per step, not all in one go', async () => {
    const items = new Set(Array.from({ length: 100 }, (_, i) => i));
    const seen: number[][] = [];
    let current: number[] = [];
    // 10 steps per period: each step visits at most ceil(100 / 10) items.
    const sweep = keepAliveSweep(items, 200, (item) => current.push(item), 20);
    const collector = setInterval(() => {
      if (current.length > 0) seen.push(current);
      current = [];
    }, 5);
    await eventually(
      () => seen.flat().length + current.length >= 100,
      15_000,
      () => `${seen.flat().length + current.length} of 100 visited`,
    );
    await sleep(5);
    sweep.stop();
    clearInterval(collector);
    if (current.length > 0) seen.push(current);
    const all = seen.flat();
    expect(all.slice(0, 100).sort((a, b) => a - b)).toEqual([...items]);
    expect(new Set(all.slice(0, 100)).size).toBe(100); // the first round: each item once
    expect(Math.max(...seen.map((s) => s.length))).toBeLessThanOrEqual(10);
    expect(seen.length).toBeGreaterThanOrEqual(10);
  });

  it('starts the next round a period after the last one started, in the same order', async () => {
    const items = new Set([1, 2, 3]);
    const visited: Array<{ item: number; at: number }> = [];
    const started = performance.now();
    const sweep = keepAliveSweep(items, 60, (item) => visited.push({ item, at: performance.now() - started }), 20);
    await eventually(
      () => visited.length >= 6,
      15_000,
      () => `${visited.length} visits`,
    );
    sweep.stop();
    expect(visited.length).toBeGreaterThanOrEqual(6);
    expect(visited.slice(0, 6).map((v) => v.item)).toEqual([1, 2, 3, 1, 2, 3]);
    // The second round's first visit is at least a period after the first round's.
    expect(visited[3]!.at - visited[0]!.at).toBeGreaterThanOrEqual(59);
  });

  it('visits a few items once per period, not once per step', async () => {
    // One item, 10 steps per period: its round ends in the first step, and the next waits for the period.
    const visits: number[] = [];
    const sweep = keepAliveSweep(new Set([1]), 100, () => visits.push(performance.now()), 10);
    await eventually(
      () => visits.length >= 3,
      15_000,
      () => `${visits.length} visits`,
    );
    sweep.stop();
    expect(visits.length).toBeGreaterThanOrEqual(3);
    // Without the pacing, a round would start every other step: 20 ms apart.
    for (let i = 1; i < visits.length; i++) expect(visits[i]! - visits[i - 1]!).toBeGreaterThanOrEqual(99);
  });

  it('visits an item added during a round and skips one deleted before its turn', async () => {
    const items = new Set(Array.from({ length: 20 }, (_, i) => i));
    const visited: number[] = [];
    const sweep = keepAliveSweep(
      items,
      100,
      (item) => {
        visited.push(item);
        if (item === 0) {
          items.delete(15);
          items.add(99);
        }
      },
      10,
    );
    await eventually(
      () => visited.length >= 20,
      15_000,
      () => `${visited.length} visits`,
    );
    sweep.stop();
    const first = visited.slice(0, 20);
    expect(first).not.toContain(15);
    expect(first).toContain(99);
    expect(first[19]).toBe(99);
  });

  it('keeps sweeping after a visit throws', async () => {
    const items = new Set([1, 2, 3, 4]);
    const visited: number[] = [];
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const sweep = keepAliveSweep(
        items,
        40,
        (item) => {
          if (item === 2 && !visited.includes(2)) {
            visited.push(2);
            throw new Error('socket gone');
          }
          visited.push(item);
        },
        10,
      );
      await eventually(
        () => visited.includes(4) && visited.filter((v) => v === 2).length >= 2,
        15_000,
        () => `visited ${visited.join(',')}`,
      );
      sweep.stop();
    } finally {
      error.mockRestore();
    }
    expect(visited.filter((v) => v === 4).length).toBeGreaterThanOrEqual(1);
    expect(visited.filter((v) => v === 2).length).toBeGreaterThanOrEqual(2);
  });

  it('yields to the event loop inside a long step', async () => {
    const items = new Set(Array.from({ length: 2_000 }, (_, i) => i));
    const rec = recorder();
    // One step per period: the whole set in one step, each visit 0.02 ms of busy work (40 ms in all).
    const sweep = keepAliveSweep(
      items,
      10,
      (item) => {
        const busyUntil = performance.now() + 0.02;
        while (performance.now() < busyUntil);
        rec.visit(item);
      },
      10,
    );
    await eventually(
      () => rec.visits.length >= 2_000,
      15_000,
      () => `${rec.visits.length} of 2,000 visited`,
    );
    sweep.stop();
    rec.stop();
    const firstRound = rec.visits.slice(0, 2_000);
    expect(firstRound).toHaveLength(2_000);
    // Timers ran between the first and the last visit of the step (the 1 ms ticker advanced).
    expect(firstRound[firstRound.length - 1]!.at).toBeGreaterThan(firstRound[0]!.at);
  });
});
