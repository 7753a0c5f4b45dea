import { defaultLimits } from '../../../src/platform/config';
import { decodeCursor, encodeCursor, pageFromConnectionArgs, pageFromQuery } from '../../../src/platform/pagination';

const issuePath = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { code: string; details: { issues: Array<{ path: string }> } }).details.issues[0]!.path;
  }
  throw new Error('expected a VALIDATION_FAILED error');
};

describe('pageFromQuery (REST limit/offset)', () => {
  it('defaults to 20 from 0 and accepts the maximum', () => {
    expect(pageFromQuery({}, defaultLimits)).toEqual({ limit: 20, offset: 0 });
    expect(pageFromQuery({ limit: '100', offset: '40' }, defaultLimits)).toEqual({ limit: 100, offset: 40 });
  });

  it.each([
    [{ limit: '101' }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '-5' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: '1e1' }, 'limit'],
    [{ limit: '0x10' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ offset: '99999999999999999999' }, 'offset'],
    [{ offset: ' 3' }, 'offset'],
  ])('rejects %j naming %s', (query, path) => {
    expect(issuePath(() => pageFromQuery(query, defaultLimits))).toBe(path);
  });
});

describe('cursors and pageFromConnectionArgs (GraphQL first/after)', () => {
  it('round-trips a position and continues after it', () => {
    expect(decodeCursor(encodeCursor(41))).toBe(41);
    expect(pageFromConnectionArgs({ first: 5, after: encodeCursor(9) }, defaultLimits)).toEqual({ limit: 5, offset: 10 });
    expect(pageFromConnectionArgs({}, defaultLimits)).toEqual({ limit: 20, offset: 0 });
  });

  it.each([
    ['not base64 of a position', 'garbage'],
    ['a negative position', Buffer.from('pos:-1').toString('base64url')],
    ['a position past the safe integer range', Buffer.from('pos:99999999999999999999').toString('base64url')],
    ['an empty string', ''],
  ])('rejects a cursor that is %s', (_name, cursor) => {
    expect(issuePath(() => decodeCursor(cursor))).toBe('after');
  });

  it.each([[0], [101], [-1]])('rejects first = %d', (first) => {
    expect(issuePath(() => pageFromConnectionArgs({ first }, defaultLimits))).toBe('first');
  });
});
