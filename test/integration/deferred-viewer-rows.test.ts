import { startTestServer, type TestServer } from '../helpers/server';
import { deferredRequestContext } from '../../src/platform/http/request-context';
import { readWithViewerCheck } from '../../src/platform/graphql/deferred-viewer';
import { asText, executeShaped } from '../../src/platform/sql/database';

/**
 * The rows a carried read hands back (src/platform/graphql/deferred-viewer.ts): exactly the read's own
 * rows, in its order, without the columns the lookup adds; the viewer set from them; and, for a read that
 * finds nothing, the viewer still settled (by a lookup of its own for a one-row read). Both forms, on a
 * real server's database, for a live and a revoked token.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const contextFor = (token: string) => deferredRequestContext(server.app.deps, `Bearer ${token}`, 'rows-test', '127.0.0.1');

const three = { sql: 'select g as n, repeat(?, g) as s from generate_series(1, 3) g order by g desc', params: ['x'] };
const none = { sql: 'select g as n from generate_series(1, 3) g where g > ?', params: [5] };
const one = { sql: 'select g as n, ? as s from generate_series(1, 3) g where g = 2', params: ['two'] };

describe('a carried read hands back its own rows', () => {
  it.each([
    [
      'several rows, as text',
      three,
      asText,
      [
        { n: 3, s: 'xxx' },
        { n: 2, s: 'xx' },
        { n: 1, s: 'x' },
      ],
    ],
    [
      'several rows, prepared',
      three,
      executeShaped,
      [
        { n: 3, s: 'xxx' },
        { n: 2, s: 'xx' },
        { n: 1, s: 'x' },
      ],
    ],
    ['no row', none, asText, []],
    ['one row, marked as at most one', { ...one, atMostOneRow: true }, executeShaped, [{ n: 2, s: 'two' }]],
    ['no row, marked as at most one', { ...none, atMostOneRow: true }, executeShaped, []],
  ] as const)('%s: the same rows, in order, and the viewer set', async (_name, statement, run, expected) => {
    const { token } = await server.rest.agentSession();
    const ctx = await contextFor(token);
    expect(ctx.pendingViewer?.open).toBe(true);
    const rows = await readWithViewerCheck<Record<string, unknown>>(ctx, statement, run);
    expect(rows).toEqual(expected);
    for (const row of rows) expect(Object.keys(row)).toEqual(Object.keys(expected[0]!));
    expect(ctx.viewer).not.toBeNull();
    expect(await ctx.pendingViewer!.settled()).toEqual(ctx.viewer);
  });

  it.each([
    ['several rows', three],
    ['no row', none],
    ['one row, marked as at most one', { ...one, atMostOneRow: true }],
    ['no row, marked as at most one', { ...none, atMostOneRow: true }],
  ] as const)('%s with a revoked token: no viewer', async (_name, statement) => {
    const { token } = await server.rest.agentSession();
    expect((await server.rest.delete('/api/agent/sessions/current', { token })).status).toBe(204);
    const ctx = await contextFor(token);
    await readWithViewerCheck(ctx, statement, asText);
    expect(ctx.viewer).toBeNull();
    expect(await ctx.pendingViewer!.settled()).toBeNull();
  });
});
