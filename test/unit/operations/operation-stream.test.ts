import { createPubSub } from '@graphql-yoga/subscription';
import type { EventTopics } from '../../../src/platform/live/events';
import { operationStream, type OperationUpdate } from '../../../src/operations/operation-stream';
import { StreamEnd } from '../../../src/platform/live/live';
import { AppError } from '../../../src/platform/errors';
import type { OperationView } from '../../../src/operations/operation.service';
import type { ToolOperation } from '../../../src/operations/tool-operation.entity';
import { within } from '../../helpers/wait';

type Event = EventTopics['operation.updated'];

/** An EventTarget that counts its listeners, to see that a stopped stream lets go of its topic. */
class CountingTarget extends EventTarget {
  listeners = 0;
  override addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
    this.listeners += 1;
    super.addEventListener(...args);
  }
  override removeEventListener(...args: Parameters<EventTarget['removeEventListener']>): void {
    this.listeners -= 1;
    super.removeEventListener(...args);
  }
}

function bus() {
  const target = new CountingTarget();
  const pubsub = createPubSub<{ 'operation.updated': [Event] }>({ eventTarget: target });
  const publish = (operationId: string, status: string, step: number) => pubsub.publish('operation.updated', { operationId, principalId: 'p', status, step });
  return { target, publish, events: () => pubsub.subscribe('operation.updated') };
}

const viewOf = (status: string): OperationView =>
  ({ operation: { status } as ToolOperation, prompt: null, stepTitle: null, submissionSchema: null, token: null, done: false }) as OperationView;

async function take(stream: AsyncIterator<OperationUpdate | StreamEnd>): Promise<OperationUpdate | StreamEnd | 'end'> {
  const r = await stream.next();
  return r.done ? 'end' : r.value;
}

describe('operationStream', () => {
  it('yields the current state, then changes of its operation only, and ends after the one that ends it', async () => {
    const { target, publish, events } = bus();
    const stream = operationStream(events(), 'op-1', async () => viewOf('active'));
    expect(await take(stream)).toMatchObject({ operationId: 'op-1', current: { operation: { status: 'active' } } });
    publish('op-2', 'active', 2);
    publish('op-1', 'active', 2);
    publish('op-2', 'cancelled', 2);
    publish('op-1', 'completed', 5);
    publish('op-1', 'completed', 5);
    expect(await take(stream)).toEqual({ operationId: 'op-1' });
    expect(await take(stream)).toEqual({ operationId: 'op-1' });
    expect(await take(stream)).toBe('end');
    expect(target.listeners).toBe(0);
  });

  it('misses no change made while the current state is being read', async () => {
    const { publish, events } = bus();
    const stream = operationStream(events(), 'op-1', async () => {
      publish('op-1', 'cancelled', 1);
      return viewOf('active');
    });
    expect(await take(stream)).toHaveProperty('current');
    expect(await within(take(stream), 500)).toEqual({ operationId: 'op-1' });
    expect(await take(stream)).toBe('end');
  });

  it('yields the state of an operation that is already over and ends', async () => {
    const { target, events } = bus();
    const stream = operationStream(events(), 'op-1', async () => viewOf('expired'));
    expect(await take(stream)).toMatchObject({ current: { operation: { status: 'expired' } } });
    expect(await take(stream)).toBe('end');
    expect(target.listeners).toBe(0);
  });

  it('stops at once when the subscriber leaves while it waits, and lets go of the topic', async () => {
    const { target, events } = bus();
    const stream = operationStream(events(), 'op-1', async () => viewOf('active'));
    await take(stream);
    const waiting = stream.next();
    expect(target.listeners).toBe(1);
    expect(await within(stream.return!(), 500)).toEqual({ done: true, value: undefined });
    expect(await within(waiting, 500)).toEqual({ done: true, value: undefined });
    expect(target.listeners).toBe(0);
  });

  it('fails when the current state cannot be read, and lets go of the topic', async () => {
    const { target, events } = bus();
    const stream = operationStream(events(), 'op-1', async () => {
      throw new Error('database down');
    });
    await expect(stream.next()).rejects.toThrow('database down');
    expect(target.listeners).toBe(0);
  });
});

describe('operationStream with a live source', () => {
  it('passes on the end of a live stream (a revoked token) and stops', async () => {
    const end = new StreamEnd(new AppError('UNAUTHENTICATED', 'revoked'));
    async function* source() {
      yield end;
      yield { operationId: 'op-1', principalId: 'p', status: 'active', step: 2 };
    }
    const stream = operationStream(source(), 'op-1', async () => viewOf('active'));
    expect(await take(stream)).toMatchObject({ operationId: 'op-1', current: { operation: { status: 'active' } } });
    expect(await take(stream)).toBe(end);
    expect(await take(stream)).toBe('end');
  });
});
