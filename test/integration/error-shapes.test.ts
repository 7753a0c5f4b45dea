import { startTestServer, type TestServer } from '../helpers/server';

/** Issue 24 finding 13: oversize requests answer in the shape of their transport. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

it('answers a GraphQL body over 1 MiB with 413 in the GraphQL error shape', async () => {
  const query = `{ viewer { id } } # ${'x'.repeat(1_100_000)}`;
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  expect(res.status).toBe(413);
  const body = (await res.json()) as any;
  expect(body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
  // REST keeps its own shape.
  const rest = await fetch(`${server.url}/api/agent/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
  });
  expect(rest.status).toBe(413);
  expect(((await rest.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
});
