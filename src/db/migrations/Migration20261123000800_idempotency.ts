import { Migration } from '@mikro-orm/migrations';

/**
 * `Idempotency-Key` on the POSTs that create things: one row per (principal, key), written in the same
 * transaction as the effect, holding the first answer so a retry replays it and writes nothing.
 */
export class Migration20261123000800_idempotency extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table idempotency_key (
  principal_id uuid not null references principal(id) on delete cascade,
  key text not null,
  request_hash text not null,
  status_code int not null,
  content_type text not null,
  body text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (principal_id, key)
);
create index idempotency_key_expires_index on idempotency_key (expires_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_key;');
  }
}
