import type { RequestContext } from '../platform/context';
import { pageFromQuery } from '../platform/pagination';
import type { ChangelogEntry } from './changelog-entry.entity';
import { listChangelog } from './changelog.service';

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

/** `GET /api/blueprints/:id/changelog` (REST and MCP): newest first. */
export async function changelogPageBody(ctx: RequestContext, idOrSlug: string, query: { limit?: unknown; offset?: unknown }) {
  const page = await listChangelog(ctx, idOrSlug, pageFromQuery(query, ctx.config.limits));
  return { items: page.items.map(toChangelogBody), total: page.total, limit: page.limit, offset: page.offset };
}
