import { callers, matrix, type Caller, type Outcome } from './authorization/matrix';
import { freshToken, matches, matrixWorld } from './authorization/world';

// The REST cells of the authorization matrix (the table and its rules: authorization/matrix.ts).
const world = matrixWorld();

describe('REST: every route has a row', () => {
  it('the routes the server registered are exactly the rows', () => {
    const registered = new Set(world.w.server.app.http.registeredRoutes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`));
    const rows = new Set(matrix.rest.map((r) => `${r.method} ${r.route}`));
    expect([...registered].filter((r) => !rows.has(r)).sort()).toEqual([]);
    expect([...rows].filter((r) => !registered.has(r)).sort()).toEqual([]);
  });
});

describe('REST', () => {
  it.each(matrix.rest.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const { w, tokens } = world;
    const actual = {} as Record<Caller, number>;
    const wanted = {} as Record<Caller, Outcome>;
    for (const c of callers) {
      const token = row.freshTokens ? await freshToken(w, c) : tokens[c];
      const res = await w.server.rest.request(row.method, await row.url(w, c), { token, body: await row.body?.(w, c), headers: row.headers });
      actual[c] = res.status;
      wanted[c] = matches(row.expect[c], res.status) ? res.status : row.expect[c];
    }
    expect(actual).toEqual(wanted);
  });
});
