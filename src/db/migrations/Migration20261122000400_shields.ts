import { Migration } from '@mikro-orm/migrations';

/** Upstream shields: the parts of a fork that `upstream_merge` keeps as the fork has them. */
export class Migration20261122000400_shields extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table blueprint add column shields jsonb not null default '{}'::jsonb;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table blueprint drop column shields;');
  }
}
