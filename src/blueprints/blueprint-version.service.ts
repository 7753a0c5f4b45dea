/**
 * The version store: every write of a blueprint's plan appends a version in its own transaction (create,
 * fork, INPLACE tools), so it lives with the blueprint; the versions area reads history on top of it.
 */
import { ref } from '@mikro-orm/core';
import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Principal } from '../auth/principal.entity';
import type { Blueprint } from './blueprint.entity';
import type { Plan } from '../plans/plan';
import type { RequestContext } from '../platform/context';
import { publishOnCommit } from '../platform/live/events';
import { BlueprintVersion } from './blueprint-version.entity';

/**
 * Appends the next version of `blueprint` with its current plan as the snapshot. Call inside the write
 * transaction that changed the plan; the (blueprint, number) unique key rejects a concurrent duplicate.
 */
export async function recordVersion(
  tx: EntityManager,
  blueprint: Blueprint,
  authorId: string,
  cause: string,
  changes: Record<string, unknown>,
  plan: Plan = blueprint.plan,
): Promise<BlueprintVersion> {
  const rows: Array<{ next: number }> = await tx.execute('select coalesce(max(number), 0) + 1 as next from blueprint_version where blueprint_id = ?', [
    blueprint.id,
  ]);
  const version = persistVersion(tx, blueprint, Number(rows[0]!.next), authorId, cause, changes, plan);
  // Version 1 is the blueprint's birth (its creation or fork is the activity); later ones are news.
  if (version.number > 1)
    await publishOnCommit(tx, 'blueprint.activity', { blueprintId: blueprint.id, kind: 'version', subjectId: version.id, actorId: authorId });
  return version;
}

/**
 * Version 1 of a blueprint made in this transaction (created or forked): it has no version yet, so
 * nothing is read to number it, and its birth is not news (the creation or fork is the activity).
 */
export function recordFirstVersion(
  tx: EntityManager,
  blueprint: Blueprint,
  authorId: string,
  cause: string,
  changes: Record<string, unknown>,
): BlueprintVersion {
  return persistVersion(tx, blueprint, 1, authorId, cause, changes, blueprint.plan);
}

function persistVersion(
  tx: EntityManager,
  blueprint: Blueprint,
  number: number,
  authorId: string,
  cause: string,
  changes: Record<string, unknown>,
  plan: Plan,
): BlueprintVersion {
  const version = new BlueprintVersion({
    blueprint: ref(blueprint),
    number,
    author: tx.getReference(Principal, authorId, { wrapped: true }),
    cause,
    changes,
    plan: structuredClone(plan),
  });
  tx.persist(version);
  return version;
}

/** The newest version number of a blueprint (0 when it has none). */
export async function latestVersionNumber(em: EntityManager, blueprintId: string): Promise<number> {
  const rows: Array<{ number: number | null }> = await em.execute('select max(number) as number from blueprint_version where blueprint_id = ?', [blueprintId]);
  return Number(rows[0]?.number ?? 0);
}

/** The plan as version `number` left it, or null when the blueprint has no such version. */
export async function versionSnapshot(em: EntityManager, blueprintId: string, number: number): Promise<Plan | null> {
  const rows: Array<{ plan: Plan }> = await em.execute('select plan from blueprint_version where blueprint_id = ? and number = ?', [blueprintId, number]);
  return rows[0]?.plan ?? null;
}

/**
 * The current version number of blueprints (0 when none), batched per request: an editor's `base_version`
 * (`PUT /api/blueprints/:id/plan`) is read from the blueprint body's `version`.
 */
export function currentVersionOf(ctx: RequestContext, blueprintId: string): Promise<number> {
  return ctx.loaders
    .get(
      'blueprint.currentVersion',
      () =>
        new DataLoader<string, number>(async (ids) => {
          const rows: Array<{ blueprint_id: string; number: number }> = await ctx.em.execute(
            'select blueprint_id, max(number) as number from blueprint_version where blueprint_id = any(?::uuid[]) group by blueprint_id',
            [`{${ids.join(',')}}`],
          );
          const byId = new Map(rows.map((r) => [r.blueprint_id, Number(r.number)]));
          return ids.map((id) => byId.get(id) ?? 0);
        }),
    )
    .load(blueprintId);
}
