import { defaultLimits } from '../../src/platform/config';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, Subscription, type WsClient } from '../helpers/ws';
import { statusOf } from '../helpers/rest';

/**
 * Documents built to make a GraphQL server work hard before it refuses: fragment fan-outs (2^30 fields
 * once expanded), fragment cycles, floods of tokens and directives, subscriptions over HTTP. Each is
 * refused as bad input (400 VALIDATION_FAILED over HTTP, an error message over graphql-ws) and the server
 * stays responsive. Timings are printed by `npm run bench:graphql-abuse`; here a refusal must simply come
 * back (an exponential check would not come back at all).
 */
let server: TestServer;
let ws: WsClient;
/** Every operation needs a token (the public rule); the defences are what is tested. */
let token: string;
beforeAll(async () => {
  server = await startTestServer();
  token = await server.rest.agentToken('abuser');
  ws = connectWs(server.url, token);
});
afterAll(async () => {
  await ws.close();
  await server.close();
});

/** `fragment F<i> on Blueprint { forkedFrom { ...F<i+1> } forks { edges { node { ...F<i+1> } } } }`, `levels` deep. */
export function nestedFanOut(levels: number): string {
  const fragments = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on Blueprint { forkedFrom { ...F${i + 1} } forks(first: 1) { edges { node { ...F${i + 1} } } } }`,
  );
  return `query { blueprint(slug: "x") { ...F0 } } ${fragments.join(' ')} fragment F${levels} on Blueprint { id }`;
}

/** `fragment F<i> on Query { ...F<i+1> ...F<i+1> }`: no depth at all, 2^levels fields once expanded. */
export function flatFanOut(levels: number): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} a${i}: viewer { id } ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { viewer { id } }`;
}

const cycle = 'query { ...A } fragment A on Query { viewer { id } ...B } fragment B on Query { ...A }';

async function overHttp(body: unknown) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
}

async function overWs(query: string) {
  const sub = new Subscription<unknown>();
  sub.dispose = ws.client.subscribe(
    { query },
    { next: (r) => sub.push(r as never), error: (e) => sub.push({ errors: e as never }), complete: () => undefined },
  );
  const result = await sub.next(10_000);
  sub.dispose();
  return result;
}

function expectRefused(errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> | undefined, message: RegExp): void {
  expect(errors?.length).toBeGreaterThan(0);
  for (const e of errors!) expect(e.extensions?.code).toBe('VALIDATION_FAILED');
  expect(errors!.map((e) => e.message).join(' | ')).toMatch(message);
}

describe('fragment fan-outs', () => {
  it('refuses a nested fan-out 30 fragments deep by its depth, over HTTP and graphql-ws', async () => {
    const res = await overHttp({ query: nestedFanOut(30) });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /levels deep; at most 15/);
    expectRefused((await overWs(nestedFanOut(30))).errors as never, /levels deep/);
  });

  it('counts a fan-out once per fragment: 2^30 possible fields under the depth limit run like one field', async () => {
    const token = await server.rest.agentToken('fan');
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: flatFanOut(30) }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { data?: Record<string, { id: string }>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data!.viewer!.id).toEqual(expect.any(String));
  });

  it('counts nodes with fragments expanded once: a paged fan-out is refused by its node count', async () => {
    // F<i> asks for forks(first: 100) of F<i+1> twice: 3 levels are 2·100·(1 + 2·100·(1 + 2·100)) nodes.
    const fragments = [0, 1, 2].map(
      (i) =>
        `fragment F${i} on Blueprint { forks(first: 100) { edges { node { ...F${i + 1} } } } a${i}: forks(first: 100) { edges { node { ...F${i + 1} } } } }`,
    );
    const query = `query { blueprint(slug: "x") { ...F0 } } ${fragments.join(' ')} fragment F3 on Blueprint { id }`;
    const res = await overHttp({ query });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /could return up to 8040200 nodes; at most 500000/);
  });
});

describe('fragment cycles', () => {
  it('answers a fragment cycle with 400 VALIDATION_FAILED over HTTP, and an error message (not a close) over graphql-ws', async () => {
    const res = await overHttp({ query: cycle });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /Cannot spread fragment "A" within itself/);
    expectRefused((await overWs(cycle)).errors as never, /within itself/);
    // the socket is still open: the next operation runs on it
    expect((await overWs('{ architectures(first: 1) { totalCount } }')).errors).toBeUndefined();
  });

  it('answers a self-spreading fragment the same way', async () => {
    const res = await overHttp({ query: 'query { ...A } fragment A on Query { viewer { id } ...A }' });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /within itself/);
  });
});

describe('floods', () => {
  it(`stops parsing at ${defaultLimits.queryTokensMax} tokens`, async () => {
    const query = `{ ${Array.from({ length: defaultLimits.queryTokensMax }, () => '__typename').join(' ')} }`;
    const res = await overHttp({ query });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /tokens/);
    expectRefused((await overWs(query)).errors as never, /tokens/);
  });

  it(`refuses more than ${defaultLimits.queryDirectivesMax} directives`, async () => {
    const query = `{ ${Array.from({ length: defaultLimits.queryDirectivesMax + 1 }, () => '__typename @include(if: true)').join(' ')} }`;
    const res = await overHttp({ query });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /directives/);
    expectRefused((await overWs(query)).errors as never, /directives/);
  });
});

describe('subscriptions over HTTP', () => {
  it('answers a subscription operation sent over HTTP with 400 VALIDATION_FAILED pointing to the WebSocket', async () => {
    const res = await overHttp({ query: 'subscription { architectureChanged(slug: "x") { kind } }' });
    expect(res.status).toBe(400);
    expectRefused(res.body.errors, /WebSocket/);
  });
});

it('is still serving after all of the above', async () => {
  expect(await statusOf(`${server.url}/healthz`)).toBe(200);
});
