import { backendDatabase } from '../../../bench/basics';
import { sliceSide } from '../../../bench/scale-forks';

/** bench:scale attributes PostgreSQL's CPU to each side by the backend's database, read off its process title. */
describe("a PostgreSQL backend's database, from its process title", () => {
  it.each([
    ['postgres: 15/main: postgres bw_bench_36f3c161_off 127.0.0.1(60342) idle', 'bw_bench_36f3c161_off'],
    ['postgres: postgres test 127.0.0.1(5432) SELECT', 'test'],
    ['postgres: 15/main: postgres test [local] idle in transaction', 'test'],
    ['postgres: 15/main: postgres test ::1(41000) idle', 'test'],
  ])('%s', (title, database) => expect(backendDatabase(title)).toBe(database));

  it.each([
    'postgres: 15/main: checkpointer',
    'postgres: 15/main: logical replication launcher',
    'postgres: walwriter',
    '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main',
  ])('none for the server process %s', (title) => expect(backendDatabase(title)).toBeUndefined());
});

describe('the interleaved fork slices', () => {
  it('alternate on, off, off, on, so that each side goes first as often, and split evenly', () => {
    const order = Array.from({ length: 12 }, (_, i) => sliceSide(i));
    expect(order.slice(0, 8)).toEqual(['on', 'off', 'off', 'on', 'on', 'off', 'off', 'on']);
    expect(order.filter((s) => s === 'on')).toHaveLength(6);
  });
});
