import { Migration } from '@mikro-orm/migrations';

/**
 * Changelog entries, broadcast subscriptions, broadcasts and their inbox deliveries. A delivery's id is
 * a bigserial `seq`: broadcasts are sent one at a time (a transaction-level advisory lock), so seq order
 * is commit order and a client's cursor ("deliveries after N") never skips a row committed later.
 */
export class Migration20261122000300_broadcasts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table changelog_entry (
  id uuid primary key,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  author_id uuid not null references principal(id),
  title text not null,
  body text not null,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index changelog_entry_blueprint_created_index on changelog_entry (blueprint_id, created_at desc, id desc);

create table blueprint_subscription (
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  principal_id uuid not null references principal(id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (blueprint_id, principal_id)
);
create index blueprint_subscription_principal_index on blueprint_subscription (principal_id);

create table broadcast (
  id uuid primary key,
  source_blueprint_id uuid not null references blueprint(id) on delete cascade,
  sender_id uuid not null references principal(id),
  message text not null,
  type text not null check (type in ('changelog', 'notice', 'security', 'deprecation')),
  severity text not null check (severity in ('info', 'minor', 'breaking', 'critical')),
  recipient_count integer not null,
  created_at timestamptz not null default clock_timestamp()
);
create index broadcast_source_created_index on broadcast (source_blueprint_id, created_at);

create table inbox_delivery (
  seq bigserial primary key,
  broadcast_id uuid not null references broadcast(id) on delete cascade,
  recipient_id uuid not null references principal(id) on delete cascade,
  read_at timestamptz null,
  unique (broadcast_id, recipient_id)
);
create index inbox_delivery_recipient_index on inbox_delivery (recipient_id, seq);
create index inbox_delivery_unread_index on inbox_delivery (recipient_id, seq) where read_at is null;
`);
  }
}
