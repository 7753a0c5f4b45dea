import { canEditWith, canReadWith, readableSql } from '../../../src/blueprints/access';
import { TeamRole } from '../../../src/teams/team.entity';

const alice = { principalId: 'alice', kind: 'agent' as const, name: 'alice' };
const bob = { principalId: 'bob', kind: 'agent' as const, name: 'bob' };
const none = new Map<string, TeamRole>();

describe('blueprint access rules', () => {
  const privateOfAlice = { visibility: 'private', ownerId: 'alice', teamId: null };
  const teamPrivate = { visibility: 'private', ownerId: 'alice', teamId: 't1' };

  it('lets anyone read a public blueprint and only the owner edit it', () => {
    const pub = { visibility: 'public', ownerId: 'alice', teamId: null };
    expect(canReadWith(null, none, pub)).toBe(true);
    expect(canEditWith(null, none, pub)).toBe(false);
    expect(canEditWith(bob, none, pub)).toBe(false);
    expect(canEditWith(alice, none, pub)).toBe(true);
  });

  it('hides a private blueprint from everyone but its owner', () => {
    expect(canReadWith(alice, none, privateOfAlice)).toBe(true);
    expect(canReadWith(bob, none, privateOfAlice)).toBe(false);
    expect(canReadWith(null, none, privateOfAlice)).toBe(false);
  });

  it.each([
    [TeamRole.OWNER, true, true],
    [TeamRole.ADMIN, true, true],
    [TeamRole.MEMBER, true, true],
    [TeamRole.VIEWER, true, false],
  ])('gives a team %s read=%s edit=%s on a private team blueprint', (role, read, edit) => {
    const roles = new Map([['t1', role]]);
    expect(canReadWith(bob, roles, teamPrivate)).toBe(read);
    expect(canEditWith(bob, roles, teamPrivate)).toBe(edit);
    expect(canReadWith(bob, new Map([['t2', role]]), teamPrivate)).toBe(false);
  });

  it('narrows SQL lists to public rows for anonymous callers and adds owned and team rows for a viewer', () => {
    expect(readableSql('b', null)).toEqual({ sql: "b.visibility = 'public'", params: [] });
    const forBob = readableSql('x', bob);
    expect(forBob.sql).toContain('x.owner_id = ?');
    expect(forBob.params).toEqual(['bob', 'bob']);
  });
});
