import { TransactionContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/core';
import { idleContextsInstalled, ormContextStates } from '../../../src/platform/sql/orm-contexts';

/**
 * MikroORM's async contexts are enabled only while a run of theirs is in flight (orm-contexts.ts). These
 * run MikroORM's own `TransactionContext` (what `em.transactional` uses) over fake EntityManagers: it only
 * reads their name and id. The database-backed half (a real transaction and flush through the server) is in
 * test/integration/orm-contexts.test.ts.
 */

const em = (name: string, id: number) => ({ name, _id: id }) as unknown as EntityManager;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const enabled = () => ormContextStates().enabled;

test('MikroORM was loaded with its four storages made idle-aware, and none is enabled at rest', () => {
  expect(idleContextsInstalled()).toBe(true);
  expect(ormContextStates()).toEqual({ count: 4, enabled: 0 });
});

test('a transaction context is seen through awaits, timers and nested promises, then disabled when it ends', async () => {
  const a = em('default', 1);
  const seen: Array<EntityManager | undefined> = [];
  const result = await TransactionContext.create(a, async () => {
    expect(enabled()).toBe(1);
    seen.push(TransactionContext.getEntityManager());
    await tick();
    seen.push(TransactionContext.getEntityManager());
    await new Promise<void>((resolve) => setTimeout(() => (seen.push(TransactionContext.getEntityManager()), resolve()), 5));
    await Promise.all([1, 2].map(async () => (await tick(), seen.push(TransactionContext.getEntityManager()))));
    return 'done';
  });
  expect(result).toBe('done');
  expect(seen).toEqual([a, a, a, a, a]);
  await tick();
  expect(enabled()).toBe(0);
  expect(TransactionContext.getEntityManager()).toBeUndefined();
});

test('overlapping transactions: the one still running keeps its context after the other ends', async () => {
  const a = em('default', 1);
  const b = em('default', 2);
  let releaseB!: () => void;
  const bMayEnd = new Promise<void>((resolve) => (releaseB = resolve));
  const seenInB: Array<EntityManager | undefined> = [];
  const runB = TransactionContext.create(b, async () => {
    seenInB.push(TransactionContext.getEntityManager());
    await bMayEnd;
    seenInB.push(TransactionContext.getEntityManager());
    await tick();
    seenInB.push(TransactionContext.getEntityManager());
  });
  await TransactionContext.create(a, async () => {
    await tick();
    expect(TransactionContext.getEntityManager()).toBe(a);
  });
  await tick();
  expect(enabled()).toBe(1); // b's run is still in flight
  releaseB();
  await runB;
  expect(seenInB).toEqual([b, b, b]);
  await tick();
  expect(enabled()).toBe(0);
});

test('nested runs: the inner one ending leaves the outer context in place', async () => {
  const outer = em('default', 1);
  const inner = em('default', 2);
  await TransactionContext.create(outer, async () => {
    await TransactionContext.create(inner, async () => {
      await tick();
      expect(TransactionContext.getEntityManager()).toBe(inner);
    });
    await tick();
    await tick();
    expect(TransactionContext.getEntityManager()).toBe(outer);
  });
  await tick();
  expect(enabled()).toBe(0);
});

test('a run that rejects or throws still ends, and its caller gets the error', async () => {
  await expect(
    TransactionContext.create(em('default', 1), async () => {
      await tick();
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(() =>
    TransactionContext.create(em('default', 1), () => {
      throw new Error('at once');
    }),
  ).toThrow('at once');
  await tick();
  expect(enabled()).toBe(0);
});

test('code started before a run and resumed after it ends sees no context', async () => {
  let resume!: () => void;
  const later = new Promise<void>((resolve) => (resume = resolve));
  const outside = (async () => {
    await later;
    return TransactionContext.getEntityManager();
  })();
  await TransactionContext.create(em('default', 1), async () => {
    await tick();
    resume();
  });
  expect(await outside).toBeUndefined();
});
