import { Migration } from '@mikro-orm/migrations';

/**
 * Teams, complete. `team_audit_entry` is append-only at the database: triggers refuse every UPDATE,
 * DELETE and TRUNCATE, so no code path (and no hand-typed SQL) can rewrite the history. Entries keep no
 * foreign key to `team` or `principal`: the log outlives a deleted team and names who acted even then.
 * `execution_run.system_prompt` stores the prompt a run started with, so an edit of the team's
 * conventions reaches later runs only.
 */
export class Migration20261123000400_teams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table team_audit_entry (
  id uuid primary key,
  team_id uuid not null,
  at timestamptz not null default clock_timestamp(),
  seq bigserial not null,
  actor_id uuid not null,
  actor_name text not null,
  action text not null,
  target_type text not null,
  target_id text not null,
  details jsonb not null default '{}'
);
create index team_audit_entry_team_index on team_audit_entry (team_id, seq desc);
create index team_audit_entry_action_index on team_audit_entry (team_id, action, seq desc);

create function team_audit_entry_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'team_audit_entry is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
end
$$;
create trigger team_audit_entry_no_update before update or delete on team_audit_entry
  for each row execute function team_audit_entry_append_only();
create trigger team_audit_entry_no_truncate before truncate on team_audit_entry
  for each statement execute function team_audit_entry_append_only();

alter table execution_run add column system_prompt text null;
create index blueprint_team_index on blueprint (team_id, created_at) where team_id is not null;
`);
  }
}
