import { startTestServer, type TestServer } from '../helpers/server';
import { createBlueprint } from '../fixtures/blueprints';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('serves healthz and creates a blueprint over REST', async () => {
  expect((await server.rest.get('/healthz')).body).toEqual({ status: 'ok', backplane: { name: 'postgres', state: 'up' } });
  const token = await server.rest.agentToken();
  const bp = await createBlueprint(server.rest, token, { name: 'Smoke' });
  expect(bp.slug).toBe('smoke');
});
