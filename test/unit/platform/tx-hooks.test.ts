import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../../src/platform/context';
import { TxHookPoint, on, registerTxHooks } from '../../../src/platform/sql/tx-hooks';

const tx = {} as EntityManager;
const ctx = {} as RequestContext;

describe('TxHookPoint', () => {
  it('runs the hooks the area modules registered, in order, each once however often it is registered', async () => {
    const point = new TxHookPoint<{ id: string }>('thing.deleted');
    const seen: string[] = [];
    const first = async (_tx: EntityManager, _ctx: RequestContext, e: { id: string }) => void seen.push(`first ${e.id}`);
    const second = async (_tx: EntityManager, _ctx: RequestContext, e: { id: string }) => void seen.push(`second ${e.id}`);
    const registrations = [on(point, first), on(point, second)];
    registerTxHooks(registrations);
    registerTxHooks(registrations);
    await point.fire(tx, ctx, { id: 'a' });
    expect(seen).toEqual(['first a', 'second a']);
    expect(registrations.map((r) => r.point)).toEqual(['thing.deleted', 'thing.deleted']);
  });

  it('fails the write when a hook fails, so its transaction rolls back', async () => {
    const point = new TxHookPoint<null>('thing.changed');
    point.register(async () => {
      throw new Error('the higher area could not take its part');
    });
    await expect(point.fire(tx, ctx, null)).rejects.toThrow('could not take its part');
  });
});
