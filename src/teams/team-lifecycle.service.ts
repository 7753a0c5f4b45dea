import { requireViewer } from '../auth/auth.service';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden } from '../platform/errors';
import { teamInputs } from './team.contract';
import { assertValid, compileSchema } from '../platform/json-schema';
import type { PageRequest } from '../platform/pagination';
import { actorOf, assertAuditReader, auditPage, parseAuditAction, recordAudit, type AuditEntry } from './audit.service';
import { Team, TeamRole, managerRoles } from './team.entity';
import { getTeam, lockTeam, viewerRoleIn } from './team.service';

const updateBody = compileSchema(teamInputs.update);

/** One of the caller's teams, with the caller's role and what the team holds. */
export interface TeamSummary {
  team: Team;
  role: TeamRole;
  memberCount: number;
  blueprintCount: number;
  architectureCount: number;
}

/** The caller's teams (any role), oldest membership first: one statement for the page and its total. */
export async function listMyTeams(ctx: RequestContext, page: PageRequest): Promise<{ items: TeamSummary[]; total: number }> {
  const viewer = requireViewer(ctx);
  const rows: Array<{ id: string; name: string; conventions: string; created_at: Date; updated_at: Date; role: TeamRole } & Record<string, unknown>> =
    await ctx.em.execute(
      `select t.id, t.name, t.conventions, t.created_at, t.updated_at, m.role,
            (select count(*) from team_member x where x.team_id = t.id) as member_count,
            (select count(*) from blueprint b where b.team_id = t.id) as blueprint_count,
            (select count(*) from architecture a where a.team_id = t.id) as architecture_count,
            count(*) over () as total
       from team_member m join team t on t.id = m.team_id
      where m.principal_id = ?
      order by m.created_at, t.id offset ? limit ?`,
      [viewer.principalId, page.offset, page.limit],
    );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted: Array<{ n: string }> = await ctx.em.execute('select count(*) as n from team_member where principal_id = ?', [viewer.principalId]);
    total = Number(counted[0]!.n);
  }
  return {
    items: rows.map((r) => ({
      team: ctx.em.map(Team, { id: r.id, name: r.name, conventions: r.conventions, created_at: r.created_at, updated_at: r.updated_at }),
      role: r.role,
      memberCount: Number(r.member_count),
      blueprintCount: Number(r.blueprint_count),
      architectureCount: Number(r.architecture_count),
    })),
    total,
  };
}

/**
 * Renames the team and/or replaces its conventions (owner or admin). One audit entry names what changed,
 * old and new; a PATCH that changes nothing writes nothing. New conventions reach executions started
 * after the commit; a run keeps the prompt it started with.
 */
export async function updateTeam(ctx: RequestContext, teamId: string, body: unknown): Promise<Team> {
  await ctx.em.transactional(async (tx) => {
    const role = await lockTeam(ctx, tx, teamId);
    if (!managerRoles.includes(role)) throw forbidden('Only the team owner or an admin may rename the team or edit its conventions');
    const input = assertValid<{ name?: string; conventions?: string }>(updateBody, body ?? {}, 'body');
    const rows: Array<{ name: string; conventions: string }> = await tx.execute('select name, conventions from team where id = ?', [teamId]);
    const current = rows[0]!;
    const details: Record<string, unknown> = {};
    const name = input.name?.trim();
    if (name !== undefined && name !== current.name) details.name = { from: current.name, to: name };
    if (input.conventions !== undefined && input.conventions !== current.conventions)
      details.conventions = { from: current.conventions, to: input.conventions };
    if (Object.keys(details).length === 0) return;
    await tx.execute('update team set name = ?, conventions = ?, updated_at = now() where id = ?', [
      name ?? current.name,
      input.conventions ?? current.conventions,
      teamId,
    ]);
    await recordAudit(tx, { teamId, actor: actorOf(ctx), action: 'team.updated', targetType: 'team', targetId: teamId, details });
  });
  ctx.loaders.clear();
  return getTeam(ctx, teamId);
}

/**
 * Deletes the team (owner only). Refused with 409, naming the counts, while it still holds blueprints or
 * architectures: they must be transferred out first, so nothing is lost. The audit log is kept (its
 * last entry is the deletion).
 */
export async function deleteTeam(ctx: RequestContext, teamId: string): Promise<void> {
  await ctx.em.transactional(async (tx) => {
    const role = await lockTeam(ctx, tx, teamId);
    if (role !== TeamRole.OWNER) throw forbidden('Only the team owner may delete the team');
    const held: Array<{ blueprints: string; architectures: string; name: string }> = await tx.execute(
      `select t.name, (select count(*) from blueprint where team_id = t.id) as blueprints,
              (select count(*) from architecture where team_id = t.id) as architectures
         from team t where t.id = ?`,
      [teamId],
    );
    const blueprints = Number(held[0]!.blueprints);
    const architectures = Number(held[0]!.architectures);
    if (blueprints > 0 || architectures > 0)
      throw conflict(`The team still holds ${blueprints} blueprint(s) and ${architectures} architecture(s); transfer them out before deleting it`, {
        blueprints,
        architectures,
      });
    await recordAudit(tx, { teamId, actor: actorOf(ctx), action: 'team.deleted', targetType: 'team', targetId: teamId, details: { name: held[0]!.name } });
    await tx.execute('delete from team where id = ?', [teamId]);
  });
  ctx.loaders.clear();
}

/** A page of the team's audit log, newest first: owner, admin and member (viewer 403, outsiders 404). */
export async function teamAuditLog(
  ctx: RequestContext,
  teamId: string,
  page: PageRequest,
  rawAction: unknown,
): Promise<{ items: AuditEntry[]; total: number }> {
  const team = await getTeam(ctx, teamId);
  assertAuditReader((await viewerRoleIn(ctx, team.id))!);
  const action = parseAuditAction(rawAction);
  return auditPage(ctx.em, team.id, page, action);
}
