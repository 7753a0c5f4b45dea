import { Migration } from '@mikro-orm/migrations';

/**
 * The size of each stored plan as JSON text, kept by PostgreSQL on every write however it is made: the
 * GraphQL response budget (src/platform/graphql/response-budget.ts) charges a plan field this many bytes before
 * the plan is read, so a list of a hundred large plans is refused without loading any of them.
 */
export class Migration20261127000100_plan_bytes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table blueprint add column plan_bytes integer generated always as (octet_length(plan::text)) stored;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table blueprint drop column plan_bytes;`);
  }
}
