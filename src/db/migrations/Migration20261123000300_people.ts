import { Migration } from '@mikro-orm/migrations';

/**
 * People: accounts with a username and an argon2id password hash; token kinds for sign-in and scoped
 * account tokens with a last-used time; failed sign-ins (brute-force protection that every instance
 * sees); reviews with their counters kept on the blueprint; and the deletion rules in docs/reviews.md
 * (a deleted blueprint's delivered broadcasts stay in inboxes, their source set to null).
 */
export class Migration20261123000300_people extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table principal add column username text null;
alter table principal add column password_hash text null;
create unique index principal_username_index on principal (username) where username is not null;

alter table access_token drop constraint access_token_kind_check;
alter table access_token add constraint access_token_kind_check check (kind in ('mcp', 'agent_session', 'sign_in'));
alter table access_token add column name text null;
alter table access_token add column scope text not null default 'write' check (scope in ('read', 'write'));
alter table access_token add column prefix text null;
alter table access_token add column last_used_at timestamptz null;

create table sign_in_failure (
  id bigserial primary key,
  username text not null,
  ip text not null,
  at timestamptz not null default now()
);
create index sign_in_failure_username_index on sign_in_failure (username, at);
create index sign_in_failure_ip_index on sign_in_failure (ip, at);

create table review (
  id uuid primary key,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  reviewer_id uuid not null references principal(id) on delete cascade,
  rating integer not null check (rating between 1 and 5),
  body text not null,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (blueprint_id, reviewer_id)
);
create index review_blueprint_created_index on review (blueprint_id, created_at desc, id desc);
create index review_reviewer_index on review (reviewer_id);
alter table blueprint add column review_count integer not null default 0;
alter table blueprint add column rating_sum integer not null default 0;

alter table broadcast alter column source_blueprint_id drop not null;
alter table broadcast drop constraint broadcast_source_blueprint_id_fkey;
alter table broadcast add constraint broadcast_source_blueprint_id_fkey foreign key (source_blueprint_id) references blueprint(id) on delete set null;
`);
  }
}
