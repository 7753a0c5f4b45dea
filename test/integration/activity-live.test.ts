import { createTeam, principalIdOf } from '../fixtures/architectures';
import { sql } from '../fixtures/history';
import { createTeamBlueprint } from '../fixtures/teams';
import { liveMark } from '../helpers/live';
import { startTestServer, type TestServer } from '../helpers/server';
import { activityLive } from '../../src/broadcasts/activity-live';
import { connectWs, type Subscription, type WsClient } from '../helpers/ws';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * `blueprintActivity` through the shared hub (src/broadcasts/activity-live.ts): each event is resolved
 * once per instance for all its listeners, and each listener still gets exactly its own sight of it. Many
 * listeners (several people, two selections each, two subscriptions per selection) watch one team
 * blueprint: the selection of the event's own fields takes the direct path (one frame per event, written
 * to every socket), the other one runs the resolvers; both must agree field by field, for every listener.
 */
let server: TestServer;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
const people = ['owner', 'member', 'viewer', 'stranger'] as const;
type Person = (typeof people)[number];
const sockets: WsClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (const p of people) {
    tokens[p] = await server.rest.agentToken(`activity ${p}`);
    ids[p] = await principalIdOf(server.gql, tokens[p]!);
  }
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
  await server.close();
});

/** Only the event's own fields: the direct path answers it. */
const DIRECT = 'subscription D($id: ID!) { blueprintActivity(id: $id) { __typename kind blueprintId subjectId } }';
/** The same fields and resolved ones: the document runs for every event. */
const EXECUTED = 'subscription E($id: ID!) { blueprintActivity(id: $id) { __typename kind blueprintId subjectId actor { id } blueprint { id } } }';
const COPIES = 2;

interface Listener {
  person: Person;
  direct: boolean;
  sub: Subscription<any>;
}

function listen(blueprintId: string): Listener[] {
  const out: Listener[] = [];
  for (const person of people) {
    const socket = connectWs(server.url, tokens[person]);
    sockets.push(socket);
    for (let i = 0; i < COPIES; i++)
      for (const direct of [true, false]) out.push({ person, direct, sub: socket.subscribe<any, any>(direct ? DIRECT : EXECUTED, { id: blueprintId }) });
  }
  return out;
}

/** The next event of every listener of `who`; the direct and executed answers agree on the shared fields. */
async function nextOf(listeners: Listener[], who: readonly Person[], actor: Person = 'owner'): Promise<Map<Person, any>> {
  const byPerson = new Map<Person, any>();
  for (const { person, direct, sub } of listeners.filter((l) => who.includes(l.person))) {
    const result = await sub.next();
    expect(result.errors).toBeUndefined();
    const { actor: by, blueprint, ...own } = result.data.blueprintActivity;
    if (!direct) {
      expect(blueprint).toEqual({ id: own.blueprintId });
      expect(by).toEqual({ id: ids[actor] });
    }
    if (byPerson.has(person)) expect(own).toEqual(byPerson.get(person));
    else byPerson.set(person, own);
  }
  return byPerson;
}

describe('blueprintActivity through the shared hub', () => {
  it("delivers one event to many listeners, each with its own sight of it, and ends a reader's stream when it loses sight", async () => {
    const team = await createTeam(
      server.rest,
      tokens.owner!,
      [
        [ids.member!, 'member'],
        [ids.viewer!, 'viewer'],
      ],
      'Watchers',
    );
    const bp = await createTeamBlueprint(server.rest, tokens.owner!, team.id, { name: 'Shared watch', visibility: 'public' });
    const mark = liveMark(server);
    const listeners = listen(bp.id);
    // By slug: an error names only what its receiver sent.
    const bySlug = sockets.at(-1)!.subscribe<any, any>(DIRECT, { id: bp.slug });
    await mark.streaming(listeners.length + 1);

    // Public: everyone hears it, the same event.
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: tokens.owner })).status).toBe(200);
    const starred = await nextOf(listeners, people);
    expect((await bySlug.next()).data.blueprintActivity.kind).toBe('STARRED');
    for (const person of people)
      expect(starred.get(person)).toEqual({ __typename: 'BlueprintActivity', kind: 'STARRED', blueprintId: bp.id, subjectId: ids.owner });

    // Private to the team: its members keep hearing (their roles are read with the event), the stranger's streams end.
    await sql(server, "update blueprint set visibility = 'private' where id = ?", [bp.id]);
    const ended = liveMark(server);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/star`, { token: tokens.owner })).status).toBe(200);
    const unstarred = await nextOf(listeners, ['owner', 'member', 'viewer']);
    for (const person of ['owner', 'member', 'viewer'] as const) expect(unstarred.get(person)).toMatchObject({ kind: 'UNSTARRED', blueprintId: bp.id });
    const strangers = listeners.filter((l) => l.person === 'stranger');
    for (const { sub } of strangers) {
      const last = await sub.next();
      expect(last.data?.blueprintActivity ?? null).toBeNull();
      expect(last.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    const slugEnd = await bySlug.next();
    expect(slugEnd.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(slugEnd.errors?.[0]?.message).toContain(bp.slug);
    expect(slugEnd.errors?.[0]?.message).not.toContain(bp.id);
    await ended.ended(strangers.length + 1);

    // The owner's fork of a private blueprint is private and not the team's: only the owner learns which it is.
    const forked = await server.rest.post(`/api/blueprints/${bp.id}/fork`, { token: tokens.owner });
    expect(forked.status).toBe(201);
    const forks = await nextOf(listeners, ['owner', 'member', 'viewer']);
    expect(forks.get('owner')).toEqual({ __typename: 'BlueprintActivity', kind: 'FORKED', blueprintId: bp.id, subjectId: forked.body.id });
    expect(forks.get('member')).toEqual({ __typename: 'BlueprintActivity', kind: 'FORKED', blueprintId: bp.id, subjectId: null });
    expect(forks.get('viewer')).toEqual({ __typename: 'BlueprintActivity', kind: 'FORKED', blueprintId: bp.id, subjectId: null });

    // A member removed from the team stops hearing at the next event; the others go on.
    expect((await server.rest.delete(`/api/teams/${team.id}/members/${ids.viewer}`, { token: tokens.owner })).status).toBe(204);
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: tokens.member })).status).toBe(200);
    for (const { sub } of listeners.filter((l) => l.person === 'viewer')) expect((await sub.next()).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const last = await nextOf(listeners, ['owner', 'member'], 'member');
    expect(last.get('member')).toMatchObject({ kind: 'STARRED' });
    // The stranger's streams ended before the fork and the last star: nothing more reached them.
    for (const { sub } of strangers) {
      expect(sub.completed).toBe(true);
      expect(await sub.nothingWithin(1)).toBe(true);
    }
  });

  it("ends every watcher's stream with NOT_FOUND when a public blueprint is deleted (a deletion is never delivered unread)", async () => {
    const bp = await createTeamBlueprint(server.rest, tokens.owner!, (await createTeam(server.rest, tokens.owner!, [], 'Deleting')).id, {
      name: 'Deleted while watched',
      visibility: 'public',
    });
    const mark = liveMark(server);
    const socket = connectWs(server.url, tokens.stranger);
    sockets.push(socket);
    const watching = socket.subscribe<any, any>(DIRECT, { id: bp.id });
    await mark.streaming(1);
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: tokens.owner })).status).toBe(200);
    expect((await watching.next()).data.blueprintActivity.kind).toBe('STARRED');
    expect((await server.rest.delete(`/api/blueprints/${bp.id}`, { token: tokens.owner })).status).toBe(204);
    const ended = await watching.next();
    expect(ended.data?.blueprintActivity ?? null).toBeNull();
    expect(ended.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('reads events that arrive together once, and still gives each listener each event in order with its own sight', async () => {
    const open = await createTeamBlueprint(server.rest, tokens.owner!, (await createTeam(server.rest, tokens.owner!, [], 'Burst')).id, {
      name: 'Burst public',
      visibility: 'public',
    });
    const closed = await createTeamBlueprint(server.rest, tokens.owner!, (await createTeam(server.rest, tokens.owner!, [], 'Burst closed')).id, {
      name: 'Burst private',
      visibility: 'private',
    });
    const mark = liveMark(server);
    const ownerSocket = connectWs(server.url, tokens.owner);
    const strangerSocket = connectWs(server.url, tokens.stranger);
    sockets.push(ownerSocket, strangerSocket);
    const onOpen = [ownerSocket, strangerSocket].map((s) => s.subscribe<any, any>(DIRECT, { id: open.id }));
    const onClosed = ownerSocket.subscribe<any, any>(DIRECT, { id: closed.id });
    await mark.streaming(3);
    // Twelve events in one transaction: one relay pass hands them to this instance together.
    const kinds = ['starred', 'unstarred', 'edited'] as const;
    const { events, orm } = server.app.deps;
    // Every read of the hub goes through `read` (one event) or `readBatch` (several): count both.
    const one = jest.spyOn(activityLive, 'read');
    const many = jest.spyOn(activityLive, 'readBatch');
    try {
      await orm.em.fork().transactional(async (tx) => {
        for (let i = 0; i < 6; i++)
          for (const bp of [open, closed])
            await events.publish(tx as EntityManager, 'blueprint.activity', { blueprintId: bp.id, kind: kinds[i % 3]!, subjectId: null, actorId: ids.owner! });
      });
      for (const sub of [...onOpen, onClosed])
        for (let i = 0; i < 6; i++) expect((await sub.next()).data.blueprintActivity.kind).toBe(kinds[i % 3]!.toUpperCase());
      const batched = many.mock.calls.map(([, batch]) => batch.length);
      expect(batched.some((n) => n > 1)).toBe(true);
      expect(one.mock.calls.length + batched.reduce((a, b) => a + b, 0)).toBe(12);
      expect(one.mock.calls.length + many.mock.calls.length).toBeLessThan(12);
    } finally {
      one.mockRestore();
      many.mockRestore();
    }
    // The stranger may not see the private one: it never subscribed to it (404 at the start), and nothing else reached it.
    expect(await onOpen[1]!.nothingWithin(1)).toBe(true);
  });
});
