import type { EntityManager } from '@mikro-orm/postgresql';
import { readableSql } from '../blueprints/access';
import type { PlanModule } from '../plans/plan';
import type { Viewer } from '../platform/context';
import { textArrayLiteral } from '../platform/sql/pg-array';

/** At most this many readable blueprints are scored: those sharing a module key or kind, most starred first. */
export const CANDIDATES_MAX = 500;

/** A blueprint worth comparing with a module graph: its card fields and its modules. */
export interface Candidate {
  id: string;
  slug: string;
  name: string;
  stars_count: number;
  module_count: number;
  step_count: number;
  modules: PlanModule[];
}

const textArray = (items: string[]) => textArrayLiteral(new Set(items));

/**
 * Readable blueprints that share at least one module key or kind with `modules` (so the set stays bounded
 * and relevant), most starred first, without the ids in `exclude`. One statement.
 */
export async function relatedCandidates(
  em: EntityManager,
  viewer: Viewer | null,
  modules: Array<Pick<PlanModule, 'key' | 'kind'>>,
  exclude: string[],
  max = CANDIDATES_MAX,
): Promise<Candidate[]> {
  const readable = readableSql('b', viewer);
  return em.execute(
    `select b.id, b.slug, b.name, b.stars_count, b.module_count, b.step_count, b.plan->'modules' as modules
       from blueprint b
      where ${readable.sql} and not (b.id = any(?::uuid[]))
        and exists (select 1 from jsonb_array_elements(b.plan->'modules') m
                     where m->>'key' = any(?::text[]) or m->>'kind' = any(?::text[]))
      order by b.stars_count desc, b.created_at desc, b.id
      limit ?`,
    [...readable.params, `{${exclude.join(',')}}`, textArray(modules.map((m) => m.key)), textArray(modules.map((m) => m.kind)), max],
  );
}
