import { startTestServer, type TestServer } from '../helpers/server';
import { statusOf } from '../helpers/rest';

/**
 * `GET /metrics`: public by default but in its own small bucket per address (a scrape reads every gauge),
 * and with METRICS_TOKEN readable only with that bearer token. Refusals are in the documented shape.
 */
const PER_MINUTE = 3;

async function scrape(server: TestServer, token?: string) {
  const res = await fetch(`${server.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null,
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('without METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: { metricsPerMinute: PER_MINUTE } });
  });
  afterAll(() => server.close());

  it('is public, and limited to METRICS_PER_MINUTE per address (its own bucket)', async () => {
    for (let i = 0; i < PER_MINUTE; i++) {
      const ok = await scrape(server);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('http_requests_total');
    }
    const refused = await scrape(server);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // the caller's general bucket is untouched
    expect(await statusOf(`${server.url}/api/no-such-path`)).toBe(404);
  });
});

describe('with METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ metricsToken: 'scrape-secret', limits: { metricsPerMinute: PER_MINUTE } });
  });
  afterAll(() => server.close());

  it('answers only that bearer token, and refused attempts spend the bucket', async () => {
    const anonymous = await scrape(server);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe('UNAUTHENTICATED');
    expect(anonymous.text).not.toContain('http_requests_total');
    const wrong = await scrape(server, 'scrape-secreT');
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('UNAUTHENTICATED');
    const right = await scrape(server, 'scrape-secret');
    expect(right.status).toBe(200);
    expect(right.text).toContain('http_requests_total');
    expect((await scrape(server, 'scrape-secret')).status).toBe(429);
  });
});
