import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import { isUuid } from '../platform/sql/ids';
import type { RequestContext } from '../platform/context';
import { forbidden, notFound } from '../platform/errors';
import { assertValid, compileSchema } from '../platform/json-schema';
import { teamInputs } from './team.contract';
import { actorOf, recordAudit } from './audit.service';
import { TeamRole, editorRoles } from './team.entity';

/** `{team_id}`: a team's id, or null to move the thing out of its team. */
const transferBody = compileSchema(teamInputs.transfer);

/** What a transfer moves: a blueprint or an architecture, as its row is now (locked). */
export interface Transferable {
  kind: 'blueprint' | 'architecture';
  id: string;
  ownerId: string;
  teamId: string | null;
}

async function roleIn(tx: EntityManager, teamId: string, principalId: string, lock: 'share' | 'update'): Promise<TeamRole | null> {
  // Lock, then read the role in its own statement (see lockTeam: a joined role would predate the wait).
  const locked: unknown[] = await tx.execute(`select 1 from team where id = ? for ${lock}`, [teamId]);
  if (locked.length === 0) return null;
  const rows: Array<{ role: TeamRole }> = await tx.execute('select role from team_member where team_id = ? and principal_id = ?', [teamId, principalId]);
  return rows[0]?.role ?? null;
}

/**
 * Locks a team the principal may put blueprints and architectures into (owner, admin or member) until the
 * transaction ends, so the team cannot be deleted meanwhile: 404 when the team does not exist or the
 * principal is not in it (outsiders never learn a team exists), 403 for a viewer.
 */
export async function lockTeamForEditor(tx: EntityManager, teamId: string, principalId: string): Promise<TeamRole> {
  const role = isUuid(teamId) ? await roleIn(tx, teamId.toLowerCase(), principalId, 'share') : null;
  if (role === null) throw notFound('team', teamId);
  if (!editorRoles.includes(role)) throw forbidden('Only an owner, admin or member of the team may put blueprints or architectures into it');
  return role;
}

/**
 * The team side of a transfer (docs/teams.md), the one rule for blueprints and architectures, whose own
 * services lock their row and move it (`transferBlueprint`, `transferArchitecture`); checked on the locked row; writes the audit entries (one in the team left, one in the team joined) and returns
 * the new team id, or `undefined` when nothing moves.
 * - Out of a team (to null or to another team): the owner of the current team only.
 * - Into a team: the thing's owner (or the current team's owner moving it between teams), who must be
 *   an owner, admin or member of the receiving team (not in it: 404; viewer: 403).
 */
export async function applyTransfer(ctx: RequestContext, tx: EntityManager, subject: Transferable, rawBody: unknown): Promise<string | null | undefined> {
  const viewer = requireViewer(ctx);
  const input = assertValid<{ team_id: string | null }>(transferBody, rawBody ?? {}, 'body');
  const target = input.team_id === null ? null : input.team_id.toLowerCase();
  const ownsIt = subject.ownerId === viewer.principalId;
  // Between two teams, both rows are locked in id order first, so two opposite transfers cannot deadlock.
  if (subject.teamId !== null && target !== null && target !== subject.teamId && isUuid(target))
    await tx.execute('select id from team where id in (?, ?) order by id for update', [subject.teamId, target]);
  const currentRole = subject.teamId === null ? null : await roleIn(tx, subject.teamId, viewer.principalId, 'update');
  if (target === subject.teamId) {
    if (!ownsIt && currentRole !== TeamRole.OWNER) throw forbidden(`Only the owner of this ${subject.kind} or of its team may transfer it`);
    return undefined;
  }
  if (subject.teamId !== null && currentRole !== TeamRole.OWNER)
    throw forbidden(`Only the owner of its team may transfer this ${subject.kind} out of the team`);
  if (subject.teamId === null && !ownsIt) throw forbidden(`Only the owner of this ${subject.kind} may transfer it into a team`);
  if (target !== null) await lockTeamForEditor(tx, target, viewer.principalId);
  const actor = actorOf(ctx);
  if (subject.teamId !== null)
    await recordAudit(tx, {
      teamId: subject.teamId,
      actor,
      action: `${subject.kind}.transferred_out`,
      targetType: subject.kind,
      targetId: subject.id,
      details: { to_team_id: target },
    });
  if (target !== null)
    await recordAudit(tx, {
      teamId: target,
      actor,
      action: `${subject.kind}.transferred_in`,
      targetType: subject.kind,
      targetId: subject.id,
      details: { from_team_id: subject.teamId },
    });
  return target;
}
