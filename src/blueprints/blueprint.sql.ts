import type { EntityManager } from '@mikro-orm/postgresql';
import { Blueprint } from './blueprint.entity';

/** Every mapped column of `blueprint` (not the generated `search` vector), for raw batched reads. */
export const blueprintColumns = [
  'id', 'slug', 'name', 'description', 'tags', 'visibility', 'owner_id', 'team_id', 'plan', 'forked_from_id',
  'module_count', 'step_count', 'stars_count', 'forks_count', 'executions_started', 'executions_completed',
  'executions_failed', 'executions_abandoned', 'review_count', 'rating_sum', 'created_at', 'updated_at',
] as const;

export function columnsOf(alias: string): string {
  return blueprintColumns.map((c) => `${alias}.${c}`).join(', ');
}

/** Turns a raw row (with the columns above) into a managed entity of this request's identity map. */
export function mapBlueprint(em: EntityManager, row: Record<string, unknown>): Blueprint {
  const data: Record<string, unknown> = {};
  for (const c of blueprintColumns) data[c] = row[c];
  return em.map(Blueprint, data);
}
