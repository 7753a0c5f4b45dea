import { Repeater } from '@graphql-yoga/subscription';
import type { EventTopics } from '../platform/live/events';
import { StreamEnd } from '../platform/live/live';
import type { OperationView } from './operation.service';
import { OperationStatus } from './tool-operation.entity';

type OperationEvent = EventTopics['operation.updated'];

/** One item of `operationUpdated`: the state read at subscribe time, or a change event (ids only). */
export type OperationUpdate = { operationId: string; current: OperationView } | { operationId: string; current?: undefined };

/**
 * The stream behind `operationUpdated(id)`: the operation's current state first, then one item per change
 * of that operation, ending after the change that ends it (an operation already over yields its state and
 * ends). Listening starts before the current state is read, so a client that receives the first item
 * misses no later change. Stopping (unsubscribe, socket closed) releases the listener at once, even while
 * waiting for an event; an async generator would wait for the next matching event, which may never come.
 */
export function operationStream(
  events: AsyncIterable<OperationEvent | StreamEnd>,
  operationId: string,
  readCurrent: () => Promise<OperationView>,
): AsyncIterableIterator<OperationUpdate | StreamEnd> {
  return new Repeater<OperationUpdate | StreamEnd>(async (push, stop) => {
    const source = events[Symbol.asyncIterator]();
    let pending = source.next(); // subscribes to the topic now, before the current state is read
    const stopped = stop.then(() => ({ done: true as const, value: undefined }));
    void stop.then(() => source.return?.());
    const current = await readCurrent();
    await push({ operationId, current });
    let status: string = current.operation.status;
    while (status === OperationStatus.ACTIVE) {
      const next = await Promise.race([pending, stopped]);
      if (next.done) break;
      pending = source.next();
      if (next.value instanceof StreamEnd) {
        await push(next.value); // the connection lost its authorization: say why, then end
        break;
      }
      if (next.value.operationId !== operationId) continue;
      status = next.value.status;
      await push({ operationId });
    }
    stop();
  });
}
