import { mkdtempSync, rmSync, chmodSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, isUnavailable, knownError } from '../../../src/platform/errors';
import { reachableBy } from '../../../src/platform/sql/embedded-postgres-files';

describe('isUnavailable: which failures are a 503 UNAVAILABLE', () => {
  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection dropped', new Error('Connection terminated unexpectedly')],
    ['pool acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
    ['statement timeout', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
    ['lock timeout', Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })],
    ['deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ['admin shutdown', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['connection exception class 08', Object.assign(new Error('x'), { code: '08006' })],
    ['wrapped by the ORM', Object.assign(new Error('wrapped'), { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })],
  ])('%s', (_name, error) => {
    expect(isUnavailable(error)).toBe(true);
    expect(knownError(error, 7)).toMatchObject({ code: 'UNAVAILABLE', status: 503, details: { retry_after_seconds: 7 } });
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['a plain bug', new TypeError('x is undefined')],
    ['an AppError', new AppError('NOT_FOUND', 'nope')],
  ])('not %s', (_name, error) => {
    expect(isUnavailable(error)).toBe(false);
  });
});

describe('reachableBy: can the postgres user traverse down to a folder', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bw-reach-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const stranger = { uid: 654321, gid: 654321 };

  it('is false below a 0700 folder and true below a 0755 one', () => {
    const closed = path.join(root, 'closed');
    const open = path.join(root, 'open');
    mkdirSync(path.join(closed, 'inner'), { recursive: true });
    mkdirSync(path.join(open, 'inner'), { recursive: true });
    chmodSync(root, 0o755);
    chmodSync(closed, 0o700);
    chmodSync(open, 0o755);
    expect(reachableBy(stranger, path.join(closed, 'inner'))).toBe(false);
    expect(reachableBy(stranger, path.join(open, 'inner'))).toBe(true);
    expect(reachableBy(stranger, path.join(open, 'not-yet-created'))).toBe(true);
  });
});
