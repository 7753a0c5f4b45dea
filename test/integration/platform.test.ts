import { startTestServer, type TestServer } from '../helpers/server';
import { query, rowCounts } from '../helpers/sql';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('HTTP basics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers GET /healthz with 200 {"status":"ok"}', async () => {
    const res = await server.rest.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', backplane: { name: 'postgres', state: 'up' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('echoes the x-request-id the caller sent', async () => {
    const res = await server.rest.get('/healthz', { headers: { 'x-request-id': 'trace-42.a:b_c' } });
    expect(res.headers.get('x-request-id')).toBe('trace-42.a:b_c');
  });

  it('generates a distinct x-request-id when none is sent, on REST and GraphQL alike', async () => {
    const a = await server.rest.get('/healthz');
    const b = await server.rest.post('/graphql', { body: { query: '{ viewer { id } }' } });
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('replaces an x-request-id that is not a short safe token with a generated one', async () => {
    const res = await server.rest.get('/healthz', { headers: { 'x-request-id': 'a'.repeat(101) } });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    const spaced = await server.rest.get('/healthz', { headers: { 'x-request-id': 'two words' } });
    expect(spaced.headers.get('x-request-id')).toMatch(UUID);
  });

  it('answers an unknown route with 404 NOT_FOUND in the error shape, with a request id', async () => {
    const res = await server.rest.get('/api/no-such-thing?x=1', { headers: { 'x-request-id': 'lost-1' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('/api/no-such-thing') } });
    expect(res.body.error.message).not.toContain('x=1');
    expect(res.headers.get('x-request-id')).toBe('lost-1');
    expect((await server.rest.delete('/healthz')).status).toBe(404);
  });

  it('answers malformed JSON with 400 VALIDATION_FAILED and writes nothing', async () => {
    const before = await rowCounts(server.databaseUrl);
    const res = await server.rest.post('/api/agent/sessions', { rawBody: '{"name": "half' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.any(String) } });
    const gql = await server.rest.post('/graphql', { rawBody: '{"query": "{ viewer { id } }"' });
    expect(gql.status).toBe(400);
    // GraphQL clients read errors[], also for a body that is not JSON
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });

  it.each([
    ['text/plain', 'name=x'],
    ['application/x-www-form-urlencoded', 'name=x'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--'],
    ['application/xml', '<name>x</name>'],
  ])('answers a %s body with 400 VALIDATION_FAILED and writes nothing', async (type, body) => {
    const before = await rowCounts(server.databaseUrl);
    for (const path of ['/api/agent/sessions', '/graphql']) {
      const res = await server.rest.post(path, { rawBody: body, headers: { 'content-type': type } });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/JSON/) });
    }
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });

  it('answers a JSON body of the wrong type with 400 VALIDATION_FAILED naming the problem', async () => {
    const before = await rowCounts(server.databaseUrl);
    for (const rawBody of ['[1,2]', '42', '"name"', '{"name": 7}', '{"name": "x", "admin": true}']) {
      const res = await server.rest.post('/api/agent/sessions', { rawBody });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues.length).toBeGreaterThan(0);
    }
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });

  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE and writes nothing', async () => {
    const before = await rowCounts(server.databaseUrl);
    const rawBody = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    for (const path of ['/api/agent/sessions', '/graphql', '/api/tools/operations']) {
      const res = await server.rest.post(path, { rawBody });
      expect(res.status).toBe(413);
      // /graphql answers in the GraphQL error shape (issue 24 #13), REST in section 5's.
      if (path === '/graphql') expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
      else expect(res.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    }
    expect(await rowCounts(server.databaseUrl)).toEqual(before);
  });

  it('judges a body just under 1 MiB on its content, not its size', async () => {
    const rawBody = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 20) });
    expect(Buffer.byteLength(rawBody)).toBeLessThanOrEqual(1024 * 1024);
    const res = await server.rest.post('/api/agent/sessions', { rawBody });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('answers an unexpected failure with a masked 500 carrying the request id, and no internals', async () => {
    // A real fault, not a test-only route: the table behind agent sessions disappears under the server.
    await query(server.databaseUrl, 'alter table access_token rename to access_token_gone');
    try {
      const res = await server.rest.post('/api/agent/sessions', { body: { name: 'doomed' }, headers: { 'x-request-id': 'boom-1' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: 'INTERNAL', message: 'Internal server error', details: { request_id: 'boom-1' } } });
      expect(res.headers.get('x-request-id')).toBe('boom-1');

      const gql = await server.rest.post('/graphql', { body: { query: 'mutation { createAgentSession { token } }' }, headers: { 'x-request-id': 'boom-2' } });
      expect(gql.body.errors).toHaveLength(1);
      expect(gql.body.errors[0].message).toBe('Internal server error');
      expect(gql.body.errors[0].extensions).toEqual({ code: 'INTERNAL', request_id: 'boom-2' });
      expect(JSON.stringify(gql.body)).not.toMatch(/access_token|stack|\.ts:\d+/);
    } finally {
      await query(server.databaseUrl, 'alter table access_token_gone rename to access_token');
    }
    // The failed writes left nothing behind: the principal insert rolled back with its token.
    expect(await query(server.databaseUrl, `select 1 from principal where name = 'doomed'`)).toEqual([]);
  });
});

describe('rate limits', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a caller has used its requests for the minute', async () => {
    const server = await startTestServer({ limits: { rateLimitPerMinute: 5 } });
    try {
      const token = await server.rest.agentToken(); // counts against the sessions route's own budget
      // Anonymous reads are refused (401) and still count against the address's budget.
      for (let i = 0; i < 4; i++) expect((await server.rest.get('/api/blueprints/no-such-blueprint')).status).toBe(401);
      expect((await server.rest.get('/api/no-such-route')).status).toBe(404); // unknown paths count too
      const limited = await server.rest.get('/api/blueprints/no-such-blueprint');
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String), details: { retry_after_seconds: expect.any(Number) } } });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body.error.details.retry_after_seconds).toBe(retryAfter);
      expect(limited.headers.get('x-request-id')).toBeTruthy();

      // GraphQL counts against the same budget; a token has its own; health checks are never limited.
      expect((await server.rest.post('/graphql', { body: { query: '{ viewer { id } }' } })).status).toBe(429);
      expect((await server.gql.request('{ viewer { id } }', undefined, token)).status).toBe(200);
      for (let i = 0; i < 10; i++) expect((await server.rest.get('/healthz')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('does not let a caller escape its limit by sending made-up bearer tokens', async () => {
    const server = await startTestServer({ limits: { rateLimitPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await server.rest.delete('/api/agent/sessions/current', { token: `bwa_madeup${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    } finally {
      await server.close();
    }
  });

  it('limits POST /api/agent/sessions per IP per hour, and writes nothing when it refuses', async () => {
    const server = await startTestServer({ limits: { sessionCreatesPerHour: 2 } });
    try {
      expect((await server.rest.post('/api/agent/sessions')).status).toBe(201);
      expect((await server.rest.post('/api/agent/sessions', { body: { name: 'b' } })).status).toBe(201);
      const before = await rowCounts(server.databaseUrl);
      const limited = await server.rest.post('/api/agent/sessions', { body: { name: 'c' } });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(60);
      expect(await rowCounts(server.databaseUrl)).toEqual(before);
      // The per-hour budget is the sessions route's own: other routes still answer.
      expect((await server.rest.get('/healthz')).status).toBe(200);
      expect((await server.gql.request('{ architectures { totalCount } }')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
