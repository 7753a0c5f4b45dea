import { Migration } from '@mikro-orm/migrations';

/**
 * `access_token.token_hash` compares bytewise (collation "C"). Every authenticated request looks its
 * token up by this column (a SHA-256 in hex, so byte order and any locale's order find the same row), and
 * under a database's default collation each comparison of the unique index's descent went through the
 * locale's string collation instead of `memcmp`: about 5 µs of PostgreSQL CPU per lookup, measured with
 * pgbench on a C.UTF-8 database (docs/reads.md); more under locales such as en_US.UTF-8. The revocation
 * trigger names the column, so it is dropped and made again around the change (same definition as
 * Migration20261128000100_token_revocation_events). The table is not rewritten; the index is rebuilt.
 */
export class Migration20261202000100_token_hash_bytewise extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop trigger access_token_changed on access_token;
alter table access_token alter column token_hash type text collate "C";
create trigger access_token_changed after update on access_token for each row
  when ((old.revoked_at, old.expires_at, old.token_hash) is distinct from (new.revoked_at, new.expires_at, new.token_hash))
  execute function access_token_changed_event();
`);
  }
}
