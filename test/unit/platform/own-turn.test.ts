import { ownTurn } from '../../../src/platform/live/fanout';
import { within } from '../../helpers/wait';

/**
 * `ownTurn` lets one waiter go per turn of the event loop. A ticker that reschedules itself with
 * `setImmediate` runs once per turn, so the turn each waiter was let go in can be told apart.
 */
describe('ownTurn', () => {
  it('lets waiters that asked together go one per turn of the event loop, in the order they asked', async () => {
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const released: Array<[waiter: number, turn: number]> = [];
    await Promise.all([0, 1, 2, 3].map((waiter) => ownTurn().then(() => released.push([waiter, turn]))));
    ticking = false;
    expect(released.map(([waiter]) => waiter)).toEqual([0, 1, 2, 3]);
    const turns = released.map(([, t]) => t);
    expect(new Set(turns).size).toBe(4);
    for (let i = 1; i < turns.length; i++) expect(turns[i]).toBeGreaterThan(turns[i - 1]!);
  });

  it('serves a waiter that comes after the others have gone, as the first of a new round', async () => {
    await ownTurn();
    await expect(
      within(
        ownTurn().then(() => 'released'),
        1000,
      ),
    ).resolves.toBe('released');
  });
});
