import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes the registry's sort orders walk at 100,000 blueprints (plans printed by `npm run bench:registry`):
 * - stars: the index now holds the whole order (stars, then newest, then id), so a page reads only its rows;
 * - trending: forks made in the window are found by time without scanning every fork.
 */
export class Migration20261123000200_registry_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index if exists blueprint_public_stars_index;
create index blueprint_public_stars_index on blueprint (stars_count desc, created_at desc, id) where visibility = 'public';
create index blueprint_fork_created_index on blueprint (created_at) where forked_from_id is not null;
`);
  }
}
