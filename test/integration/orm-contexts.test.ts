import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { ormContextStates } from '../../src/platform/sql/orm-contexts';

/**
 * The server's writes (transactions and flushes of MikroORM) leave no async context enabled once they
 * have answered, so the promise hooks Node runs for enabled contexts are off between them
 * (src/platform/sql/orm-contexts.ts); the server runs with `strictTransactions`, so the starvation guard,
 * which reads the transaction context, still refuses a second connection inside a transaction.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

/** Waits until no ORM context is enabled (a background job may be in a transaction of its own for a moment). */
async function idle(): Promise<{ count: number; enabled: number }> {
  const deadline = Date.now() + 5_000;
  while (ormContextStates().enabled > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return ormContextStates();
}

test('after writes through every layer (transaction, flush, outbox) have answered, no ORM context is enabled', async () => {
  const { token } = await server.rest.agentSession();
  const blueprints = await Promise.all([1, 2, 3].map((n) => createBlueprint(server.rest, token, { name: `Contexts ${n}` })));
  const forks = await Promise.all(blueprints.map((b) => server.rest.post(`/api/blueprints/${b.id}/fork`, { token, body: {} })));
  expect(forks.map((f) => f.status)).toEqual([201, 201, 201]);
  expect(await idle()).toEqual({ count: 4, enabled: 0 });
  // And the reads that follow still answer (the fork is visible to its owner).
  const read = await server.rest.get(`/api/blueprints/${forks[0]!.body.id}`, { token });
  expect(read.status).toBe(200);
  expect((await idle()).enabled).toBe(0);
});
