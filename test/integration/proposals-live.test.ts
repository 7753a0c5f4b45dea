import { principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectWs, type Subscription, type WsClient } from '../helpers/ws';

/**
 * The proposal events of `blueprintActivity` over graphql-ws (docs/proposals.md, "Privacy"): every
 * subscriber of the target who may read the source hears PROPOSAL_OPENED, _COMMENTED, _CLOSED and _MERGED;
 * one who may not read the source hears nothing about that proposal. "Nothing" is shown without a
 * fixed wait: after the proposal's events, a public event (a star) is sent, and it is the next thing the
 * stranger receives.
 */
let server: TestServer;
let owner: string;
let forker: string;
let stranger: string;
const sockets: WsClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('target owner');
  forker = await server.rest.agentToken('forker');
  stranger = await server.rest.agentToken('stranger');
});
afterAll(async () => {
  for (const s of sockets) await s.close();
  await server.close();
});

const ACTIVITY = `subscription A($id: ID!) { blueprintActivity(id: $id) { kind blueprintId subjectId actor { id }
  proposal { number state title source { id slug name } } } }`;

function subscribe(token: string, id: string): Subscription<any> {
  const client = connectWs(server.url, token);
  sockets.push(client);
  return client.subscribe<any, any>(ACTIVITY, { id });
}

/** Results until (and with) one of kind `last`, in order; fails on any error. */
async function until(sub: Subscription<any>, last: string): Promise<any[]> {
  const seen: any[] = [];
  for (;;) {
    const r = await sub.next();
    expect(r.errors).toBeUndefined();
    seen.push(r.data.blueprintActivity);
    if (r.data.blueprintActivity.kind === last) return seen;
  }
}

const post = (path: string, token: string, body: unknown = {}) => server.rest.post(path, { token, body });

/** open, comment, close, reopen, merge: each one expected to succeed. */
async function walkProposal(targetId: string, sourceId: string, author: string): Promise<void> {
  const base = `/api/blueprints/${targetId}/proposals`;
  const opened = await post(base, author, { source_blueprint_id: sourceId, title: 'Take my cache' });
  expect(opened.status).toBe(201);
  const n = opened.body.number;
  expect((await post(`${base}/${n}/comments`, owner, { body: 'Looks fine', module_key: 'api' })).status).toBe(201);
  expect((await post(`${base}/${n}/close`, author)).status).toBe(200);
  expect((await post(`${base}/${n}/reopen`, author)).status).toBe(200);
  expect((await post(`${base}/${n}/merge`, owner)).status).toBe(200);
}

/** Gives the source a change worth proposing. */
async function changeSource(id: string, token: string): Promise<void> {
  const { body } = await server.rest.get(`/api/blueprints/${id}`, { token });
  const res = await server.rest.put(`/api/blueprints/${id}/plan`, {
    token,
    body: {
      modules: body.modules,
      steps: body.steps,
      configuration: { ...body.configuration, cache: 'redis' },
      design_system: body.design_system,
      base_version: body.version,
    },
  });
  expect(res.status).toBe(200);
}

describe('proposal events on blueprintActivity', () => {
  it('reach every reader of a public source: opened, commented, closed, reopened, merged, each resolving its proposal', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Live target' });
    const source = await fork(server.rest, forker, target.id);
    await changeSource(source.id, forker);
    const mark = liveMark(server);
    const subs = [subscribe(stranger, target.id), subscribe(owner, target.id)];
    await mark.streaming(2);
    await walkProposal(target.id, source.id, forker);
    for (const sub of subs) {
      const events = (await until(sub, 'PROPOSAL_MERGED')).filter((e) => e.kind !== 'VERSION');
      expect(events.map((e) => e.kind)).toEqual(['PROPOSAL_OPENED', 'PROPOSAL_COMMENTED', 'PROPOSAL_CLOSED', 'PROPOSAL_OPENED', 'PROPOSAL_MERGED']);
      expect(new Set(events.map((e) => e.subjectId)).size).toBe(1);
      for (const e of events) expect(e).toMatchObject({ blueprintId: target.id, proposal: { number: 1, title: 'Take my cache', source: { id: source.id } } });
      expect(events.map((e) => e.actor.id)).toEqual([await idOf(forker), await idOf(owner), await idOf(forker), await idOf(forker), await idOf(owner)]);
      expect(events[4].proposal.state).toBe('MERGED');
    }
  });

  it('tell a subscriber who may not read the source nothing about its proposal, and tell one who may everything', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Public target' });
    // The target's owner forks their own public blueprint privately: a source only they may read.
    const secret = await fork(server.rest, owner, target.id);
    const renamed = await server.rest.patch(`/api/blueprints/${secret.id}`, {
      token: owner,
      body: { name: 'Hidden experiment', visibility: 'private' },
    });
    expect(renamed.status).toBe(200);
    await changeSource(secret.id, owner);
    const mark = liveMark(server);
    const strangerSub = subscribe(stranger, target.id);
    const ownerSub = subscribe(owner, target.id);
    await mark.streaming(2);
    await walkProposal(target.id, secret.id, owner);
    // The fence: a public event after all of the proposal's. Events reach a subscriber in the order written.
    expect((await post(`/api/blueprints/${target.id}/star`, forker)).status).toBeLessThan(300);

    const heard = await until(strangerSub, 'STARRED');
    // The merge's new version of the public target is the target's news (its changes name the number only).
    expect(heard.map((e) => e.kind)).toEqual(['VERSION', 'STARRED']);
    const text = JSON.stringify(heard);
    for (const trace of [secret.id, secret.slug, 'Hidden experiment', 'Take my cache']) expect(text).not.toContain(trace);
    expect(heard.every((e) => e.proposal === null)).toBe(true);

    const own = (await until(ownerSub, 'STARRED')).filter((e) => e.kind !== 'VERSION');
    expect(own.map((e) => e.kind)).toEqual(['PROPOSAL_OPENED', 'PROPOSAL_COMMENTED', 'PROPOSAL_CLOSED', 'PROPOSAL_OPENED', 'PROPOSAL_MERGED', 'STARRED']);
    expect(own[0].proposal).toMatchObject({ number: 1, source: { id: secret.id, name: 'Hidden experiment' } });
    for (const e of own.slice(0, 5)) expect(text).not.toContain(e.subjectId);
  });

  it('stop reaching a subscriber once the source goes out of their sight', async () => {
    const target = await createBlueprint(server.rest, owner, { name: 'Shared target' });
    const source = await fork(server.rest, forker, target.id);
    await changeSource(source.id, forker);
    const mark = liveMark(server);
    const strangerSub = subscribe(stranger, target.id);
    await mark.streaming(1);
    const base = `/api/blueprints/${target.id}/proposals`;
    expect((await post(base, forker, { source_blueprint_id: source.id, title: 'Soon private' })).status).toBe(201);
    expect((await until(strangerSub, 'PROPOSAL_OPENED')).map((e) => e.kind)).toEqual(['PROPOSAL_OPENED']);
    expect((await server.rest.patch(`/api/blueprints/${source.id}`, { token: forker, body: { visibility: 'private' } })).status).toBe(200);
    expect((await post(`${base}/1/comments`, forker, { body: 'Still here' })).status).toBe(201);
    expect((await post(`${base}/1/close`, forker)).status).toBe(200);
    expect((await post(`/api/blueprints/${target.id}/star`, owner)).status).toBeLessThan(300);
    const heard = await until(strangerSub, 'STARRED');
    expect(heard.map((e) => e.kind)).toEqual(['STARRED']);
  });
});

const ids = new Map<string, string>();
async function idOf(token: string): Promise<string> {
  if (!ids.has(token)) ids.set(token, await principalIdOf(server.gql, token));
  return ids.get(token)!;
}
