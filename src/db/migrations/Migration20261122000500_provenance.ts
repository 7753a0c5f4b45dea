import { Migration } from '@mikro-orm/migrations';

/**
 * Where each module of a combined blueprint came from (breed, splice, weave, style_transfer). The
 * source link survives the source's deletion as a null, so the module still reads as "combined".
 */
export class Migration20261122000500_provenance extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table module_provenance (
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  module_key text not null,
  source_blueprint_id uuid null references blueprint(id) on delete set null,
  source_module_key text not null,
  operation_id uuid null,
  created_at timestamptz not null default now(),
  primary key (blueprint_id, module_key)
);
create index module_provenance_source_index on module_provenance (source_blueprint_id) where source_blueprint_id is not null;
`);
  }
}
