/**
 * What `upstream_shield` and `upstream_merge` share: a fork's shields (stored on the blueprint row)
 * and its merge base (the parent's version it last took in, recorded in the fork's own versions).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MergePins, PlanSection } from '../plans/algebra';

/** Sections in their wire names (`design_system`), as callers send and read them. */
export const wireSections = ['modules', 'steps', 'configuration', 'design_system'] as const;
export type WireSection = (typeof wireSections)[number];

export interface WireShields {
  sections: WireSection[];
  modules: string[];
  paths: string[];
}

const toSection = (s: WireSection): PlanSection => (s === 'design_system' ? 'designSystem' : s);
const fromSection = (s: PlanSection): WireSection => (s === 'designSystem' ? 'design_system' : s);
const toPath = (p: string) => p.replace(/^design_system(?=[.[]|$)/, 'designSystem');
const fromPath = (p: string) => p.replace(/^designSystem(?=[.[]|$)/, 'design_system');

export function shieldsToWire(pins: MergePins): WireShields {
  return { sections: (pins.sections ?? []).map(fromSection), modules: [...(pins.modules ?? [])], paths: (pins.paths ?? []).map(fromPath) };
}

export function shieldsFromWire(w: Partial<WireShields>): MergePins {
  return { sections: (w.sections ?? []).map(toSection), modules: [...(w.modules ?? [])], paths: (w.paths ?? []).map(toPath) };
}

/** A fork's pins (empty when it has none). */
export async function readShields(em: EntityManager, blueprintId: string): Promise<MergePins> {
  const rows: Array<{ shields: MergePins | null }> = await em.execute('select shields from blueprint where id = ?', [blueprintId]);
  return rows[0]?.shields ?? {};
}

export async function writeShields(em: EntityManager, blueprintId: string, pins: MergePins): Promise<void> {
  await em.execute('update blueprint set shields = ?::jsonb where id = ?', [JSON.stringify(pins), blueprintId]);
}

/**
 * The parent's version number a fork last took in: the one it was forked at (`changes.parent_version`
 * of the `fork` version), or the one its newest `upstream_merge` merged up to (`changes.upstream_version`).
 * Null when no such record exists.
 */
export async function mergeBaseVersion(em: EntityManager, forkId: string): Promise<number | null> {
  const rows: Array<{ v: number | null }> = await em.execute(
    `select coalesce((changes->>'upstream_version')::int, (changes->>'parent_version')::int) as v
       from blueprint_version
      where blueprint_id = ? and cause in ('fork', 'upstream_merge')
        and coalesce(changes->>'upstream_version', changes->>'parent_version') is not null
      order by number desc limit 1`,
    [forkId],
  );
  return rows[0]?.v ?? null;
}
