import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type WsClient } from '../helpers/ws';
import { sqlListeners } from '../../src/platform/sql/sql-counter';
import { chargeResponse, plansInFlight, releaseResponse } from '../../src/platform/graphql/response-budget';

/**
 * One caller's GraphQL answers in flight at once share a budget of plan bytes (docs/limits.md, "Response
 * budget"): ten answers each within its own budget, sent together, held the event loop ten times as long
 * (bench/abuse). Another answer of the caller is held open here through the budget itself (an answer
 * that has charged its plans and is not sent yet), so the test does not depend on two requests overlapping.
 */
let server: TestServer;
let person: { token: string; id: string };
let other: string;
let blueprintId: string;
const sockets: WsClient[] = [];
const IN_FLIGHT_MAX = 100_000;

const withSteps = `query($id: ID!) { blueprint(id: $id) { name steps { key } } }`;
const withoutPlan = `query($id: ID!) { blueprint(id: $id) { name stepCount } }`;

/** Another answer of `person` that has charged `bytes` of plans and is still being built. */
function answerInFlight(bytes: number): object {
  const answer = { config: server.app.deps.config, viewer: { kind: 'user' as const, principalId: person.id }, clientIp: '192.0.2.1' };
  chargeResponse(answer, bytes, server.app.deps.config.limits.responsePlanBytesMax, 'test');
  return answer;
}

async function post(query: string, token: string) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables: { id: blueprintId } }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

beforeAll(async () => {
  server = await startTestServer({ limits: { responsePlanBytesInFlightMax: IN_FLIGHT_MAX } });
  person = await server.rest.signUp();
  other = (await server.rest.signUp()).token;
  blueprintId = (await createBlueprint(server.rest, person.token, { name: 'In flight' })).id;
}, 60_000);

afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

it('answers plans while the caller has room, and nothing stays counted once the answers are sent', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await post(withSteps, person.token);
    expect(res.status).toBe(200);
    expect(res.body.data.blueprint.steps.length).toBeGreaterThan(0);
  }
  expect([...plansInFlight(server.app.deps.config)]).toEqual([]);
});

it('refuses a plan answer with 429 RATE_LIMITED while the same account has a full budget in flight, before reading any plan', async () => {
  const held = answerInFlight(IN_FLIGHT_MAX - 10);
  const statements: string[] = [];
  const listener = (sql: string) => statements.push(sql);
  try {
    sqlListeners.add(listener);
    const res = await post(withSteps, person.token);
    sqlListeners.delete(listener);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((sql) => /\bplan\b/.test(sql))).toEqual([]);
    expect(res.status).toBe(429);
    expect(res.retryAfter).toBe('1');
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      details: { retry_after_seconds: 1, max_plan_bytes_in_flight: IN_FLIGHT_MAX, plan_bytes_in_flight: IN_FLIGHT_MAX - 10 },
    });
    // An answer without plan fields costs nothing, and another account has its own budget.
    expect((await post(withoutPlan, person.token)).status).toBe(200);
    const theirs = await post(withSteps, other);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.blueprint.steps.length).toBeGreaterThan(0);
    // The refused answer gave back what it had taken: only the held answer counts.
    expect([...plansInFlight(server.app.deps.config).values()]).toEqual([IN_FLIGHT_MAX - 10]);
  } finally {
    sqlListeners.delete(listener);
    releaseResponse(held);
  }
  const after = await post(withSteps, person.token);
  expect(after.status).toBe(200);
  expect([...plansInFlight(server.app.deps.config)]).toEqual([]);
});

it('refuses the same over graphql-ws, and gives the bytes back when a WebSocket operation completes', async () => {
  const client = connectWs(server.url, person.token);
  sockets.push(client);
  const held = answerInFlight(IN_FLIGHT_MAX - 10);
  try {
    const refused = await client.subscribe<any, any>(withSteps, { id: blueprintId }).next(10_000);
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', details: { max_plan_bytes_in_flight: IN_FLIGHT_MAX } });
  } finally {
    releaseResponse(held);
  }
  const answered = await client.subscribe<any, any>(withSteps, { id: blueprintId }).next(10_000);
  expect(answered.errors).toBeUndefined();
  expect(answered.data.blueprint.steps.length).toBeGreaterThan(0);
  expect([...plansInFlight(server.app.deps.config)]).toEqual([]);
});

it('always lets one answer alone have its own budget, whatever the in-flight limit', async () => {
  const alone = { config: { ...server.app.deps.config, limits: { ...server.app.deps.config.limits, responsePlanBytesInFlightMax: 1 } }, clientIp: '192.0.2.2' };
  expect(() => chargeResponse(alone, 5000, 10_000, 'first')).not.toThrow();
  expect(() => chargeResponse(alone, 4000, 10_000, 'second')).not.toThrow();
  const second = { config: alone.config, clientIp: '192.0.2.2' };
  expect(() => chargeResponse(second, 1, 10_000, 'other')).toThrow(/at most 1 at once/);
  releaseResponse(alone);
  expect(() => chargeResponse({ config: alone.config, clientIp: '192.0.2.2' }, 5000, 10_000, 'again')).not.toThrow();
});
