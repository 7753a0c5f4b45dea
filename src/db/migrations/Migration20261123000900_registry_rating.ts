import { Migration } from '@mikro-orm/migrations';

/**
 * The registry's `rating` order (mean review rating, best first; blueprints without reviews last), walked
 * by an index over the same expression the query orders by, so a page reads only its rows.
 */
export class Migration20261123000900_registry_rating extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create index blueprint_public_rating_index on blueprint ((rating_sum::float8 / nullif(review_count, 0)) desc nulls last, review_count desc, id)
  where visibility = 'public';
`);
  }
}
