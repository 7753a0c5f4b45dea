import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../platform/context';
import { forbidden, invalid } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import { TeamRole } from './team.entity';

/**
 * Every auditable change (docs/teams.md): to the team, its members and conventions, and to
 * team-owned blueprints and architectures. The list is closed so that `?action=` can be checked.
 */
export const auditActions = [
  'team.created',
  'team.updated',
  'team.deleted',
  'member.added',
  'member.role_changed',
  'member.removed',
  'team.owner_changed',
  'blueprint.created',
  'blueprint.transferred_in',
  'blueprint.transferred_out',
  'blueprint.tool_applied',
  'blueprint.edited',
  'blueprint.deleted',
  'blueprint.owner_changed',
  'blueprint.proposal_merged',
  'architecture.transferred_in',
  'architecture.transferred_out',
  'architecture.changed',
  'architecture.edited',
  'architecture.deleted',
  'architecture.owner_changed',
] as const;

export type AuditAction = (typeof auditActions)[number];
export type AuditTargetType = 'team' | 'member' | 'blueprint' | 'architecture';

export interface AuditEntryInput {
  teamId: string;
  /** The principal who made the change. */
  actor: { id: string; name: string };
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  at: Date;
  actor: { id: string; name: string };
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  details: Record<string, unknown>;
}

/**
 * Appends one audit entry on the caller's transaction `tx`, so the entry exists exactly when the change
 * commits. Call it once per change, after the change's own checks passed. The table refuses updates and
 * deletes (a database trigger), so this is the only way an entry is ever written.
 */
export async function recordAudit(tx: EntityManager, entry: AuditEntryInput): Promise<void> {
  await tx.execute(
    `insert into team_audit_entry (id, team_id, actor_id, actor_name, action, target_type, target_id, details)
     values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    [randomUUID(), entry.teamId, entry.actor.id, entry.actor.name, entry.action, entry.targetType, entry.targetId, JSON.stringify(entry.details ?? {})],
  );
}

/**
 * Audits a change of owner of every team blueprint and architecture `fromId` owns (a person claiming an
 * agent session's work): one entry per thing, in its team, in two statements whatever their number. Call
 * it on the claim's transaction before the owners change.
 */
export async function recordOwnerChanges(tx: EntityManager, actor: { id: string; name: string }, fromId: string, toId: string, cause: string): Promise<void> {
  for (const kind of ['blueprint', 'architecture'] as const) {
    await tx.execute(
      `insert into team_audit_entry (id, team_id, actor_id, actor_name, action, target_type, target_id, details)
       select gen_random_uuid(), t.team_id, ?, ?, ?, ?, t.id::text, jsonb_build_object('from_owner_id', ?::text, 'to_owner_id', ?::text, 'cause', ?::text)
         from ${kind} t where t.owner_id = ? and t.team_id is not null order by t.created_at, t.id`,
      [actor.id, actor.name, `${kind}.owner_changed`, kind, fromId, toId, cause, fromId],
    );
  }
}

/** The request's caller as an audit actor (the caller is authenticated wherever a change is made). */
export function actorOf(ctx: RequestContext): { id: string; name: string } {
  return { id: ctx.viewer!.principalId, name: ctx.viewer!.name };
}

/** Roles that read the audit log: owner, admin, member (a viewer gets 403; docs/teams.md). */
export function assertAuditReader(role: TeamRole): void {
  if (role === TeamRole.VIEWER) throw forbidden('Viewers may not read the audit log; owners, admins and members may');
}

export function parseAuditAction(raw: unknown): AuditAction | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string' || !(auditActions as readonly string[]).includes(raw)) throw invalid('action', `must be one of: ${auditActions.join(', ')}`);
  return raw as AuditAction;
}

interface AuditRow {
  id: string;
  at: Date;
  actor_id: string;
  actor_name: string;
  current_name: string | null;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  details: Record<string, unknown>;
  total: string;
}

/**
 * A page of a team's audit log, newest first (by insertion order, so entries of one transaction keep
 * their order), optionally of one action. Access is the caller's business (see `teamAuditLog`).
 */
export async function auditPage(
  em: EntityManager,
  teamId: string,
  page: PageRequest,
  action: AuditAction | null,
): Promise<{ items: AuditEntry[]; total: number }> {
  const filter = action ? ' and e.action = ?' : '';
  const params = action ? [teamId, action] : [teamId];
  const rows: AuditRow[] = await em.execute(
    `select e.id, e.at, e.actor_id, e.actor_name, p.name as current_name, e.action, e.target_type, e.target_id, e.details,
            count(*) over () as total
       from team_audit_entry e left join principal p on p.id = e.actor_id
      where e.team_id = ?${filter}
      order by e.seq desc offset ? limit ?`,
    [...params, page.offset, page.limit],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted: Array<{ n: string }> = await em.execute(`select count(*) as n from team_audit_entry e where e.team_id = ?${filter}`, params);
    total = Number(counted[0]!.n);
  }
  return {
    items: rows.map((r) => ({
      id: r.id,
      at: new Date(r.at),
      // The principal's current name when it still exists, else the name it had when it acted.
      actor: { id: r.actor_id, name: r.current_name ?? r.actor_name },
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
    })),
    total,
  };
}

export function toAuditEntryBody(e: AuditEntry) {
  return { id: e.id, at: e.at.toISOString(), actor: e.actor, action: e.action, target_type: e.targetType, target_id: e.targetId, details: e.details };
}
