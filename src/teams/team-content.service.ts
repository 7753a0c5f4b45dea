import type { EntityManager } from '@mikro-orm/postgresql';
import { requireViewer } from '../auth/auth.service';
import type { Blueprint } from '../blueprints/blueprint.entity';
import { getBlueprint } from '../blueprints/blueprint.service';
import { isUuid } from '../platform/ids';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { fullProjection } from '../blueprints/blueprint.projection';
import type { RequestContext } from '../platform/context';
import { forbidden, notFound } from '../platform/errors';
import { assertValid, compileSchema, type JsonSchema } from '../platform/json-schema';
import type { PageRequest } from '../platform/pagination';
import { actorOf, recordAudit } from './audit.service';
import { TeamRole, editorRoles } from './team.entity';
import { getTeam } from './team.service';

/** `{team_id}`: a team's id, or null to move the thing out of its team. */
export const transferBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['team_id'],
  properties: { team_id: { type: ['string', 'null'], format: 'uuid' } },
};
export const transferBody = compileSchema(transferBodySchema);

/** What a transfer moves: a blueprint or an architecture, as its row is now (locked). */
export interface Transferable {
  kind: 'blueprint' | 'architecture';
  id: string;
  ownerId: string;
  teamId: string | null;
}

async function roleIn(tx: EntityManager, teamId: string, principalId: string, lock: 'share' | 'update'): Promise<TeamRole | null> {
  const rows: Array<{ role: TeamRole | null }> = await tx.execute(
    `select m.role from team t left join team_member m on m.team_id = t.id and m.principal_id = ? where t.id = ? for ${lock} of t`,
    [principalId, teamId],
  );
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
 * The transfer rules of docs/teams.md, shared by blueprints and architectures, checked on
 * the locked row; writes the audit entries (one in the team left, one in the team joined) and returns
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

/** `POST /api/blueprints/:id/transfer {team_id}`: moves a blueprint into a team, between teams or out (null). */
export async function transferBlueprint(ctx: RequestContext, blueprintId: string, body: unknown): Promise<Blueprint> {
  requireViewer(ctx);
  const bp = await getBlueprint(ctx, blueprintId); // 404 when the caller may not see it
  await ctx.em.transactional(async (tx) => {
    const rows: Array<{ owner_id: string; team_id: string | null }> = await tx.execute('select owner_id, team_id from blueprint where id = ? for update', [
      bp.id,
    ]);
    if (!rows[0]) throw notFound('blueprint', blueprintId);
    const target = await applyTransfer(ctx, tx, { kind: 'blueprint', id: bp.id, ownerId: rows[0].owner_id, teamId: rows[0].team_id }, body);
    if (target === undefined) return;
    await tx.execute('update blueprint set team_id = ?, updated_at = now() where id = ?', [target, bp.id]);
    // Subscribers re-check access on every event: one who lost sight of it gets its stream ended.
    await ctx.events.publish(tx, 'blueprint.activity', { blueprintId: bp.id, kind: 'transferred', subjectId: target, actorId: ctx.viewer!.principalId });
  });
  ctx.loaders.clear();
  ctx.em.clear();
  // Read without the access check: a team owner moving someone's private blueprint out loses sight of it.
  const moved = await blueprintLoaders(ctx).byId.load(bp.id);
  if (!moved) throw notFound('blueprint', blueprintId);
  return moved;
}

/** A team's blueprints, newest first, for any member of it (others: 404). */
export async function teamBlueprints(ctx: RequestContext, teamId: string, page: PageRequest): Promise<{ items: Blueprint[]; total: number }> {
  const team = await getTeam(ctx, teamId);
  const rows: Array<Record<string, unknown>> = await ctx.em.execute(
    `select ${fullProjection.sql('b')}, count(*) over () as total from blueprint b where b.team_id = ? order by b.created_at desc, b.id offset ? limit ?`,
    [team.id, page.offset, page.limit],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted: Array<{ n: string }> = await ctx.em.execute('select count(*) as n from blueprint where team_id = ?', [team.id]);
    total = Number(counted[0]!.n);
  }
  return { items: rows.map((r) => fullProjection.map(r)), total };
}
