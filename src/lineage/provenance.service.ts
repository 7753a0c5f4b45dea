import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readableSql } from '../blueprints/access';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { fullProjection } from '../blueprints/blueprint.projection';
import type { RequestContext } from '../platform/context';

/** Where one module of a combined blueprint came from. */
export interface ModuleSource {
  moduleKey: string;
  sourceBlueprintId: string;
  sourceModuleKey: string;
}

/** A recorded module source as readers see it: the source blueprint is null when deleted or not visible. */
export interface ModuleProvenance {
  moduleKey: string;
  sourceModuleKey: string;
  sourceBlueprint: BlueprintView | null;
  operationId: string | null;
}

/**
 * Records the source of each module of `blueprintId`, inside the write transaction `tx`. The blueprint
 * row must already be flushed (the table references it).
 */
export async function recordProvenance(tx: EntityManager, blueprintId: string, operationId: string | null, sources: ModuleSource[]): Promise<void> {
  if (sources.length === 0) return;
  const values = sources.map(() => '(?, ?, ?, ?, ?)').join(', ');
  const params = sources.flatMap((s) => [blueprintId, s.moduleKey, s.sourceBlueprintId, s.sourceModuleKey, operationId]);
  await tx.execute(`insert into module_provenance (blueprint_id, module_key, source_blueprint_id, source_module_key, operation_id) values ${values}`, params);
}

/** Provenance rows of many blueprints in one statement; sources the viewer may not read come back as null. */
function provenanceLoader(ctx: RequestContext): DataLoader<string, ModuleProvenance[]> {
  return ctx.loaders.get(
    'lineage.provenance',
    () =>
      new DataLoader<string, ModuleProvenance[]>(async (ids) => {
        const readable = readableSql('s', ctx.viewer);
        const rows: Array<
          Record<string, unknown> & { p_blueprint_id: string; p_module_key: string; p_source_module_key: string; p_operation_id: string | null }
        > = await ctx.em.execute(
          `select p.blueprint_id as p_blueprint_id, p.module_key as p_module_key, p.source_module_key as p_source_module_key,
                  p.operation_id as p_operation_id, ${fullProjection.sql('s')}
             from module_provenance p
             left join blueprint s on s.id = p.source_blueprint_id and ${readable.sql}
            where p.blueprint_id = any(?::uuid[])`,
          [...readable.params, `{${ids.join(',')}}`],
        );
        const byId = new Map<string, ModuleProvenance[]>(ids.map((id) => [id, []]));
        for (const row of rows) {
          byId.get(row.p_blueprint_id)!.push({
            moduleKey: row.p_module_key,
            sourceModuleKey: row.p_source_module_key,
            sourceBlueprint: row.id === null ? null : fullProjection.map(row),
            operationId: row.p_operation_id,
          });
        }
        return ids.map((id) => byId.get(id)!);
      }),
  );
}

/** The module sources of a blueprint, in the order of its modules (batched across blueprints). */
export async function provenanceOf(ctx: RequestContext, bp: BlueprintView): Promise<ModuleProvenance[]> {
  const rows = await provenanceLoader(ctx).load(bp.id);
  const position = new Map(bp.plan.modules.map((m, i) => [m.key, i]));
  const rank = (key: string) => position.get(key) ?? Number.MAX_SAFE_INTEGER;
  return [...rows].sort((a, b) => rank(a.moduleKey) - rank(b.moduleKey) || (a.moduleKey < b.moduleKey ? -1 : 1));
}
