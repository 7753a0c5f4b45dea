import { randomUUID } from 'node:crypto';
import { addNode, createArchitecture, createTeam } from '../../fixtures/architectures';
import { createBlueprint, fork } from '../../fixtures/blueprints';
import type { SignedInUser } from '../../helpers/rest';
import { startTestServer } from '../../helpers/server';
import { fresh, type Caller, type Outcome, type World } from './expect';

const PASSWORD = 'correct horse battery';

/** What every surface's matrix test calls against: the world of `matrix.ts` and one token per caller. */
export interface MatrixWorld {
  /** Filled in by `beforeAll`. */
  w: World;
  tokens: Record<Caller, string | undefined>;
}

/**
 * Starts a server and builds the world the table's rows refer to (an owner with public and private
 * blueprints, a fork, maps, a team, a changelog entry, a run, an operation) before the file's tests, and
 * closes it after them.
 */
export function matrixWorld(): MatrixWorld {
  const world = { tokens: {} } as MatrixWorld;
  beforeAll(async () => {
    const server = await startTestServer();
    const rest = server.rest;
    const owner = await rest.signUp(`owner-${randomUUID().slice(0, 8)}`, PASSWORD);
    const foreign = await rest.signUp(`foreign-${randomUUID().slice(0, 8)}`, PASSWORD);
    const pub = await createBlueprint(rest, owner.token, { name: 'Matrix public' });
    const priv = await createBlueprint(rest, owner.token, { name: 'Matrix private', visibility: 'private' });
    const pubFork = await fork(rest, owner.token, pub.id);
    const pubArch = await createArchitecture(rest, owner.token, { name: 'Matrix public map', visibility: 'public' });
    await addNode(rest, owner.token, pubArch.slug, { blueprint_id: pub.id });
    const privArch = await createArchitecture(rest, owner.token, { name: 'Matrix private map', visibility: 'private' });
    const team = await createTeam(rest, owner.token, [], 'Matrix team');
    const entry = (await rest.post(`/api/blueprints/${priv.id}/changelog`, { token: owner.token, body: { title: 'first', body: '' } })).body;
    const run = (await rest.get(`/api/blueprints/${priv.id}/start`, { token: owner.token })).body;
    const op = await fresh.operation({ server, owner } as World);
    world.w = { server, owner, foreign, pub, priv, pubFork, pubArch, privArch, team, entry, run, op };
    Object.assign(world.tokens, {
      anonymous: undefined,
      agent: await rest.agentToken('matrix agent'),
      read: await rest.accountToken(owner.token, 'read'),
      write: await rest.accountToken(owner.token, 'write'),
      foreign: foreign.token,
      owner: owner.token,
    });
  }, 120_000);
  afterAll(async () => {
    await world.w?.server.close();
  });
  return world;
}

/** A token of the same kind as the caller's, for calls that revoke the token they present. */
export async function freshToken(w: World, c: Caller): Promise<string | undefined> {
  const rest = w.server.rest;
  const login = async (u: SignedInUser) => (await rest.post('/api/auth/login', { body: { username: u.username, password: PASSWORD } })).body.token as string;
  switch (c) {
    case 'anonymous':
      return undefined;
    case 'agent':
      return rest.agentToken('fresh agent');
    case 'read':
    case 'write':
      return rest.accountToken(w.owner.token, c);
    case 'foreign':
      return login(w.foreign);
    case 'owner':
      return login(w.owner);
  }
}

/** Whether an HTTP status is the outcome a row expects. */
export function matches(outcome: Outcome, status: number): boolean {
  if (outcome === 'ok') return status >= 200 && status < 300;
  if (outcome === 'pass') return status !== 401 && status !== 403 && status < 500;
  return status === outcome;
}

/** GraphQL and MCP answer with error codes: the code an outcome stands for. */
export const codeFor = (outcome: Outcome) => (outcome === 401 ? 'UNAUTHENTICATED' : outcome === 403 ? 'FORBIDDEN' : 'allowed');

/** The authorization code among these errors, or `allowed`. */
export const authCode = (errors: Array<{ extensions?: { code?: string } }> | undefined) =>
  errors?.map((e) => e.extensions?.code).find((c) => c === 'UNAUTHENTICATED' || c === 'FORBIDDEN') ?? 'allowed';
