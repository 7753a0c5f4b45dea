import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { EventTopics } from '../../src/platform/live/events';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 24 finding 2: one event delivered to many local subscribers must not hold the event loop. The
 * real event path (pg_notify, the LISTEN connection, the in-process topic) delivers one event to 20,000
 * subscribers of this server, each doing a little synchronous work on receipt, as a live stream does
 * (checks, execution, a socket write). An HTTP request sent when the first subscriber receives the event
 * must be answered before the last subscriber receives it: between slices of the fan-out, the server
 * answers other requests. Delivered in one synchronous loop, every subscriber's work ran before the
 * request could even be sent.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const SUBSCRIBERS = 20_000;

/** About 20 µs of synchronous work, like a subscriber's checks and write. */
function work(seed: number): number {
  let x = seed;
  for (let i = 0; i < 2_000; i++) x = (x * 31 + i) % 1_000_003;
  return x;
}

it('answers an HTTP request sent during a fan-out to 20,000 subscribers before the fan-out ends', async () => {
  const events = server.app.deps.events;
  const order: string[] = [];
  let received = 0;
  let healthz: Promise<void> | null = null;
  const architectureId = randomUUID();
  const iterators = Array.from({ length: SUBSCRIBERS }, () => events.subscribe('architecture.changed'));
  const all = Promise.all(
    iterators.map(async (iterator) => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        const event: EventTopics['architecture.changed'] = next.value;
        if (event.architectureId !== architectureId) continue;
        work(received);
        received += 1;
        if (received === 1)
          healthz = fetch(`${server.url}/healthz`).then(async (res) => {
            expect(res.status).toBe(200);
            await res.text();
            order.push(`healthz answered after ${received} of ${SUBSCRIBERS}`);
          });
        if (received === SUBSCRIBERS) order.push('fan-out done');
        return;
      }
    }),
  );
  await events.publish(server.app.deps.orm.em.fork() as EntityManager, 'architecture.changed', {
    architectureId,
    slug: 'sliced',
    change: 'updated',
    subjectId: null,
    actorId: randomUUID(),
  });
  await all;
  await healthz;
  for (const iterator of iterators) await iterator.return?.();
  expect(order).toHaveLength(2);
  expect(order[0]).toMatch(/^healthz answered after \d+ of 20000$/);
  expect(order[1]).toBe('fan-out done');
}, 120_000);

it('delivers events to each subscriber in the order they were published, across slices', async () => {
  const events = server.app.deps.events;
  const architectureId = randomUUID();
  const iterators = Array.from({ length: 5_000 }, () => events.subscribe('architecture.changed'));
  const seen = iterators.map(async (iterator) => {
    const changes: string[] = [];
    while (changes.length < 3) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.architectureId === architectureId) changes.push(next.value.change);
    }
    await iterator.return?.();
    return changes.join(',');
  });
  const em = server.app.deps.orm.em.fork() as EntityManager;
  for (const change of ['first', 'second', 'third'])
    await events.publish(em, 'architecture.changed', { architectureId, slug: 'ordered', change, subjectId: null, actorId: randomUUID() });
  expect(new Set(await Promise.all(seen))).toEqual(new Set(['first,second,third']));
}, 120_000);
