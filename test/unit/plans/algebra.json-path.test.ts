import fc from 'fast-check';
import { jsonPath, parseJsonPath, setJsonPath } from '../../../src/plans/algebra';

/** JSON paths as the algebra writes them (`jsonPath`) and reads them back (`parseJsonPath`, `setJsonPath`). */
const awkwardKey = fc.oneof(
  fc.constantFrom('theme', 'x.y', 'a"]b', '["x"]', 'back\\slash', '', ' ', 'ünï', '0lead', 'a-b', '__proto__', 'constructor'),
  fc.string({ maxLength: 8 }),
);

describe('JSON paths', () => {
  it('reads back every path jsonPath writes, whatever the keys hold (property)', () => {
    fc.assert(
      fc.property(fc.array(awkwardKey, { minLength: 1, maxLength: 5 }), (keys) => {
        expect(parseJsonPath(keys.reduce((path, key) => jsonPath(path, key), ''))).toEqual(keys);
      }),
      { numRuns: 500 },
    );
  });

  it('parses the documented forms and refuses text that is no path', () => {
    expect(parseJsonPath('theme.colors.primary')).toEqual(['theme', 'colors', 'primary']);
    expect(parseJsonPath('theme["x.y"].z')).toEqual(['theme', 'x.y', 'z']);
    for (const bad of ['', '.a', 'a..b', 'a[x]', 'a["x"', 'a["x"]b', '["unterminated]'])
      expect({ bad, parsed: parseJsonPath(bad) }).toEqual({ bad, parsed: null });
  });

  it('sets and removes the value at a path without touching the input', () => {
    const section = Object.freeze({ theme: Object.freeze({ 'a"]b': 1, keep: 2 }) });
    expect(setJsonPath(section, jsonPath('theme', 'a"]b'), 'new')).toEqual({ theme: { 'a"]b': 'new', keep: 2 } });
    expect(setJsonPath(section, jsonPath('theme', 'a"]b'), undefined)).toEqual({ theme: { keep: 2 } });
    expect(setJsonPath(section, 'fresh.deep', true)).toEqual({ theme: { 'a"]b': 1, keep: 2 }, fresh: { deep: true } });
    expect(section).toEqual({ theme: { 'a"]b': 1, keep: 2 } });
  });
});
