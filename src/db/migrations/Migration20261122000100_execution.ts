import { Migration } from '@mikro-orm/migrations';

/**
 * Execution runs remember which blueprint version they run (steps stay stable while the blueprint is
 * edited), and a step token is found among all runs of a blueprint by its hash.
 */
export class Migration20261122000100_execution extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table execution_run add column blueprint_version integer null;
create index execution_run_stage_tokens_index on execution_run using gin (stage_token_hashes);
`);
  }
}
