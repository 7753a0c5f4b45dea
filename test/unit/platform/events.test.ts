import { EventBus } from '../../../src/platform/live/events';
import { within } from '../../helpers/wait';

// Only the in-process side of the bus is exercised: no LISTEN connection is opened.
const bus = () => new EventBus('postgres://unused', () => undefined);

describe('EventBus.subscribe with a filter', () => {
  it('passes only the events `keep` accepts, in order', async () => {
    const events = bus();
    const it = events.subscribe('operation.updated', (e) => e.operationId === 'a');
    const next = it.next();
    const local = (events as unknown as { local: { publish(t: string, p: unknown): void } }).local;
    for (const [operationId, step] of [
      ['b', 1],
      ['a', 2],
      ['b', 3],
      ['a', 4],
    ] as const)
      local.publish('operation.updated', { operationId, principalId: 'p', status: 'active', step });
    expect((await next).value).toMatchObject({ operationId: 'a', step: 2 });
    expect((await it.next()).value).toMatchObject({ operationId: 'a', step: 4 });
    await it.return?.();
  });

  it('ends at once when returned while waiting for an event (an unsubscribe does not linger)', async () => {
    const events = bus();
    const it = events.subscribe('operation.updated', () => true);
    const pending = it.next();
    const returned = await within(
      it.return!().then(() => 'returned'),
      500,
    );
    expect(returned).toBe('returned');
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
