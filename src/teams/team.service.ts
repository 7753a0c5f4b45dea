import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PrincipalKind } from '../auth/principal.entity';
import { requireViewer } from '../auth/auth.service';
import { isUuid } from '../platform/sql/ids';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden, notFound, validationFailed } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { teamInputs } from './team.contract';
import { byKeys, groupByKeys } from '../platform/loaders';
import { Team, TeamRole, managerRoles } from './team.entity';
import { actorOf, recordAudit } from './audit.service';

export interface Membership {
  principalId: string;
  kind: PrincipalKind;
  name: string;
  role: TeamRole;
  joinedAt: Date;
}

const nameBody = compileSchema(teamInputs.create);
const addBody = compileSchema(teamInputs.addMember);
const roleBody = compileSchema(teamInputs.updateMember);

/** Members of many teams, ordered owner, admins, members, viewers, then by joining time: one statement. */
function membersLoader(ctx: RequestContext): DataLoader<string, Membership[]> {
  return ctx.loaders.get(
    'team.members',
    () =>
      new DataLoader<string, Membership[]>(async (teamIds) => {
        const rows: Array<{ team_id: string; principal_id: string; kind: PrincipalKind; name: string; role: TeamRole; created_at: Date }> =
          await ctx.em.execute(
            `select m.team_id, m.principal_id, p.kind, p.name, m.role, m.created_at
           from team_member m join principal p on p.id = m.principal_id
          where m.team_id = any(?::uuid[])
          order by case m.role when 'owner' then 0 when 'admin' then 1 when 'member' then 2 else 3 end, m.created_at, m.principal_id`,
            [`{${teamIds.join(',')}}`],
          );
        return groupByKeys(teamIds, rows, (r) => r.team_id).map((list) =>
          list.map((r) => ({ principalId: r.principal_id, kind: r.kind, name: r.name, role: r.role, joinedAt: new Date(r.created_at) })),
        );
      }),
  );
}

export function teamMembers(ctx: RequestContext, teamId: string): Promise<Membership[]> {
  return membersLoader(ctx).load(teamId);
}

/** The caller's role in a team, or null (anonymous, or not a member). */
export async function viewerRoleIn(ctx: RequestContext, teamId: string): Promise<TeamRole | null> {
  if (!ctx.viewer) return null;
  const members = await teamMembers(ctx, teamId);
  return members.find((m) => m.principalId === ctx.viewer!.principalId)?.role ?? null;
}

/** A team the caller belongs to (any role); 404 otherwise, so outsiders never learn a team exists. */
export async function getTeam(ctx: RequestContext, id: string): Promise<Team> {
  requireViewer(ctx);
  if (!isUuid(id)) throw notFound('team', id);
  const team = await ctx.em.findOne(Team, { id: id.toLowerCase() }, { refresh: true });
  if (!team || (await viewerRoleIn(ctx, team.id)) === null) throw notFound('team', id);
  return team;
}

/** Creates a team; the caller becomes its owner. */
export async function createTeam(ctx: RequestContext, body: unknown): Promise<Team> {
  const viewer = requireViewer(ctx);
  const input = assertValid<{ name: string }>(nameBody, body ?? {}, 'body');
  const team = await ctx.em.transactional(async (tx) => {
    const team = new Team(input.name.trim());
    tx.persist(team);
    await tx.flush();
    // Raw SQL for the membership: a Principal reference in this fork would be merged back over a
    // principal the request already loaded.
    await tx.execute(`insert into team_member (team_id, principal_id, role, created_at) values (?, ?, 'owner', now())`, [team.id, viewer.principalId]);
    await recordAudit(tx, {
      teamId: team.id,
      actor: actorOf(ctx),
      action: 'team.created',
      targetType: 'team',
      targetId: team.id,
      details: { name: team.name },
    });
    return team;
  });
  ctx.loaders.clear();
  return team;
}

/**
 * Locks the team row for the rest of the transaction and returns the caller's role there. Member
 * changes are serialized per team, so two concurrent changes can never leave it without an owner.
 */
export async function lockTeam(ctx: RequestContext, tx: EntityManager, teamId: string): Promise<TeamRole> {
  const viewer = requireViewer(ctx);
  if (!isUuid(teamId)) throw notFound('team', teamId);
  // Lock first, then read the role in a second statement: under READ COMMITTED a statement that waited
  // for the lock rechecks only the locked row, so a role joined into it would be the one from before the
  // wait (two concurrent hand-overs would both see the caller as owner and leave two owners).
  const locked: unknown[] = await tx.execute('select 1 from team where id = ? for update', [teamId]);
  if (locked.length === 0) throw notFound('team', teamId);
  const role = await memberRole(tx, teamId, viewer.principalId);
  if (role === null) throw notFound('team', teamId);
  return role;
}

async function memberRole(tx: EntityManager, teamId: string, principalId: string): Promise<TeamRole | null> {
  if (!isUuid(principalId)) return null;
  const rows: Array<{ role: TeamRole }> = await tx.execute('select role from team_member where team_id = ? and principal_id = ?', [teamId, principalId]);
  return rows[0]?.role ?? null;
}

function assertManager(role: TeamRole): void {
  if (!managerRoles.includes(role)) throw forbidden('Only the team owner or an admin may manage members');
}

/** Adds a principal with a role (admin, member or viewer). Owner or admin only. */
export async function addTeamMember(ctx: RequestContext, teamId: string, body: unknown): Promise<Team> {
  await ctx.em.transactional(async (tx) => {
    const callerRole = await lockTeam(ctx, tx, teamId);
    assertManager(callerRole);
    const input = assertValid<{ principal_id: string; role: TeamRole }>(addBody, body ?? {}, 'body');
    if (input.role === TeamRole.OWNER)
      throw validationFailed('A team has one owner; the owner hands ownership over with PATCH .../members/:principalId {"role": "owner"}', {
        issues: [{ path: 'body/role', message: 'must be admin, member or viewer' }],
      });
    const principalId = input.principal_id.toLowerCase();
    const exists: unknown[] = await tx.execute('select 1 from principal where id = ?', [principalId]);
    if (exists.length === 0) throw notFound('principal', input.principal_id);
    if ((await memberRole(tx, teamId, principalId)) !== null) throw conflict('That principal is already a member of the team', { principal_id: principalId });
    await tx.execute('insert into team_member (team_id, principal_id, role, created_at) values (?, ?, ?, now())', [teamId, principalId, input.role]);
    await tx.execute('update team set updated_at = now() where id = ?', [teamId]);
    await recordAudit(tx, { teamId, actor: actorOf(ctx), action: 'member.added', targetType: 'member', targetId: principalId, details: { role: input.role } });
  });
  ctx.loaders.clear();
  return getTeam(ctx, teamId);
}

/**
 * Changes a member's role. Owner or admin only, never the owner's own role; `owner` hands ownership over
 * (only the owner may, and becomes an admin).
 */
export async function updateTeamMember(ctx: RequestContext, teamId: string, principalId: string, body: unknown): Promise<Team> {
  const viewer = requireViewer(ctx);
  await ctx.em.transactional(async (tx) => {
    const callerRole = await lockTeam(ctx, tx, teamId);
    assertManager(callerRole);
    const input = assertValid<{ role: TeamRole }>(roleBody, body ?? {}, 'body');
    const target = principalId.toLowerCase();
    const targetRole = await memberRole(tx, teamId, target);
    if (targetRole === null) throw notFound('team member', principalId);
    if (input.role === TeamRole.OWNER) {
      if (callerRole !== TeamRole.OWNER) throw forbidden('Only the team owner may hand ownership over');
      if (target === viewer.principalId) return;
      await tx.execute(`update team_member set role = 'admin' where team_id = ? and principal_id = ?`, [teamId, viewer.principalId]);
      await tx.execute(`update team_member set role = 'owner' where team_id = ? and principal_id = ?`, [teamId, target]);
      await recordAudit(tx, {
        teamId,
        actor: actorOf(ctx),
        action: 'team.owner_changed',
        targetType: 'member',
        targetId: target,
        details: { previous_owner_id: viewer.principalId, previous_role: targetRole },
      });
    } else {
      if (targetRole === TeamRole.OWNER) throw forbidden("The owner's role changes only when they hand ownership over to another member");
      if (targetRole === input.role) return;
      await tx.execute('update team_member set role = ? where team_id = ? and principal_id = ?', [input.role, teamId, target]);
      await recordAudit(tx, {
        teamId,
        actor: actorOf(ctx),
        action: 'member.role_changed',
        targetType: 'member',
        targetId: target,
        details: { from: targetRole, to: input.role },
      });
    }
    await tx.execute('update team set updated_at = now() where id = ?', [teamId]);
  });
  ctx.loaders.clear();
  return getTeam(ctx, teamId);
}

/**
 * Removes a member: owner or admin may remove anyone but the owner; any member but the owner may leave.
 * Returns the team, or null when the caller left it.
 */
export async function removeTeamMember(ctx: RequestContext, teamId: string, principalId: string): Promise<Team | null> {
  const viewer = requireViewer(ctx);
  const target = principalId.toLowerCase();
  const leaving = target === viewer.principalId;
  await ctx.em.transactional(async (tx) => {
    const callerRole = await lockTeam(ctx, tx, teamId);
    if (!leaving) assertManager(callerRole);
    const targetRole = leaving ? callerRole : await memberRole(tx, teamId, target);
    if (targetRole === null) throw notFound('team member', principalId);
    if (targetRole === TeamRole.OWNER) throw forbidden('The team owner cannot be removed; they hand ownership over first');
    await tx.execute('delete from team_member where team_id = ? and principal_id = ?', [teamId, target]);
    await tx.execute('update team set updated_at = now() where id = ?', [teamId]);
    await recordAudit(tx, {
      teamId,
      actor: actorOf(ctx),
      action: 'member.removed',
      targetType: 'member',
      targetId: target,
      details: { role: targetRole, left: leaving },
    });
  });
  ctx.loaders.clear();
  return leaving ? null : getTeam(ctx, teamId);
}

/** Teams by id, batched: the one team loader of a request. Access is the caller's business. */
export function teamById(ctx: RequestContext, id: string): Promise<Team | null> {
  return ctx.loaders
    .get('team.byId', () => new DataLoader<string, Team | null>(async (ids) => byKeys(ids, await ctx.em.find(Team, { id: { $in: [...ids] } }), (t) => t.id)))
    .load(id);
}
