import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('operations under concurrency', () => {
  // The database pool holds 10 connections. A transaction that read its sources on a second pooled
  // connection would wait forever once 10 such transactions held all of them.
  it('serves 30 simultaneous status reads and cancels of operations with sources without starving the pool', async () => {
    const token = await server.rest.agentToken();
    const source = await createBlueprint(server.rest, token, { name: 'Concurrency source' });
    const ops = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await server.rest.post('/api/tools/operations', { token, body: { tool_type: 'lint', source_blueprint_ids: [source.id] } });
        expect(res.status).toBe(201);
        return res.body.operation_id as string;
      }),
    );
    const reads = await Promise.all(ops.map((id) => server.rest.get(`/api/tools/operations/${id}`, { token })));
    expect(reads.map((r) => r.status)).toEqual(ops.map(() => 200));
    const cancels = await Promise.all(ops.map((id) => server.rest.post(`/api/tools/operations/${id}/cancel`, { token })));
    expect(cancels.map((r) => r.body.status)).toEqual(ops.map(() => 'cancelled'));
  }, 30_000);
});
