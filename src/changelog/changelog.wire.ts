import type { ChangelogEntry } from './changelog-entry.entity';

/** The REST changelog entry of docs/api.md. */
export function toChangelogBody(entry: ChangelogEntry) {
  return {
    id: entry.id,
    title: entry.title,
    body: entry.body,
    created_at: entry.createdAt.toISOString(),
    updated_at: entry.updatedAt.toISOString(),
  };
}
