import { createArchitecture } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

jest.setTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const PROFILE = `query($username: String!) {
  user(username: $username) {
    name
    blueprints(first: 10) { totalCount edges { node { name visibility } } }
    architectures(first: 10) { totalCount edges { node { name visibility } } }
  }
}`;

type Profile = {
  user: {
    name: string;
    blueprints: { totalCount: number; edges: { node: { name: string; visibility: string } }[] };
    architectures: { totalCount: number; edges: { node: { name: string; visibility: string } }[] };
  } | null;
};

describe('user(username): a person page lists their things', () => {
  it('lists private blueprints and architectures to their owner only; others see the public ones', async () => {
    const { rest, gql } = server;
    const grace = await rest.signUp('grace-profile');
    const other = await rest.signUp('other-profile');
    await createBlueprint(rest, grace.token, { name: 'Open ledger', visibility: 'public' });
    await createBlueprint(rest, grace.token, { name: 'Secret ledger', visibility: 'private' });
    await createArchitecture(rest, grace.token, { name: 'Open map', visibility: 'public' });
    await createArchitecture(rest, grace.token, { name: 'Secret map', visibility: 'private' });

    const own = (await gql.request<Profile, { username: string }>(PROFILE, { username: 'grace-profile' }, grace.token)).data!.user!;
    expect(own.name).toBe('grace-profile');
    expect(own.blueprints.edges.map((e) => e.node.name).sort()).toEqual(['Open ledger', 'Secret ledger']);
    expect(own.blueprints.totalCount).toBe(2);
    expect(own.architectures.edges.map((e) => e.node.name).sort()).toEqual(['Open map', 'Secret map']);

    const seen = (await gql.request<Profile, { username: string }>(PROFILE, { username: 'grace-profile' }, other.token)).data!.user!;
    expect(seen.blueprints.edges.map((e) => e.node.name)).toEqual(['Open ledger']);
    expect(seen.blueprints.totalCount).toBe(1);
    expect(seen.architectures.edges.map((e) => e.node.name)).toEqual(['Open map']);
    expect(seen.architectures.totalCount).toBe(1);
  });

  it('is null for an unknown or malformed username, and refuses anonymous callers', async () => {
    const { rest, gql } = server;
    const someone = await rest.signUp('someone-profile');
    for (const username of ['no-such-person', 'Bad Name!', 'x'.repeat(500)])
      expect((await gql.request<Profile, { username: string }>(PROFILE, { username }, someone.token)).data!.user).toBeNull();
    const anonymous = await gql.request<Profile, { username: string }>(PROFILE, { username: 'someone-profile' });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
