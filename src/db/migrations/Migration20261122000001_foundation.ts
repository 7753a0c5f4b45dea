import { Migration } from '@mikro-orm/migrations';

/** Principals, tokens, teams, blueprints with full-text search, stars, lineage, versions, tool operations, runs. */
export class Migration20261122000001_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table principal (
  id uuid primary key,
  kind text not null check (kind in ('user', 'agent')),
  name text not null,
  created_at timestamptz not null default now()
);

create table access_token (
  id uuid primary key,
  principal_id uuid not null references principal(id) on delete cascade,
  kind text not null check (kind in ('mcp', 'agent_session')),
  token_hash text not null unique,
  expires_at timestamptz null,
  revoked_at timestamptz null,
  created_at timestamptz not null default now()
);
create index access_token_principal_id_index on access_token (principal_id);

create table team (
  id uuid primary key,
  name text not null,
  conventions text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table team_member (
  team_id uuid not null references team(id) on delete cascade,
  principal_id uuid not null references principal(id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (team_id, principal_id)
);
create index team_member_principal_id_index on team_member (principal_id);

-- to_tsvector over an array needs an immutable text form of it for a generated column.
create function bw_tags_text(tags text[]) returns text language sql immutable parallel safe
  as $$ select coalesce(array_to_string(tags, ' '), '') $$;

create table blueprint (
  id uuid primary key,
  slug text not null unique,
  name text not null,
  description text not null default '',
  tags text[] not null default '{}',
  visibility text not null check (visibility in ('public', 'private')),
  owner_id uuid not null references principal(id),
  team_id uuid null references team(id) on delete set null,
  plan jsonb not null,
  forked_from_id uuid null references blueprint(id) on delete set null,
  module_count integer not null default 0,
  step_count integer not null default 0,
  stars_count integer not null default 0,
  forks_count integer not null default 0,
  executions_started integer not null default 0,
  executions_completed integer not null default 0,
  executions_failed integer not null default 0,
  executions_abandoned integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', name), 'A') ||
    setweight(to_tsvector('english', bw_tags_text(tags)), 'B') ||
    setweight(to_tsvector('english', description), 'C')
  ) stored
);
create index blueprint_owner_id_index on blueprint (owner_id);
create index blueprint_team_id_index on blueprint (team_id) where team_id is not null;
create index blueprint_forked_from_index on blueprint (forked_from_id, created_at, id) where forked_from_id is not null;
create index blueprint_search_index on blueprint using gin (search);
create index blueprint_tags_index on blueprint using gin (tags);
create index blueprint_public_created_index on blueprint (created_at desc, id) where visibility = 'public';
create index blueprint_public_stars_index on blueprint (stars_count desc, id) where visibility = 'public';

create table star (
  principal_id uuid not null references principal(id) on delete cascade,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (principal_id, blueprint_id)
);
create index star_blueprint_created_index on star (blueprint_id, created_at);
create index star_created_index on star (created_at);

create table lineage_link (
  id uuid primary key,
  parent_id uuid not null references blueprint(id) on delete cascade,
  child_id uuid not null references blueprint(id) on delete cascade,
  kind text not null check (kind in ('fork', 'breed')),
  operation_id uuid null,
  created_at timestamptz not null default now(),
  unique (parent_id, child_id),
  check (parent_id <> child_id)
);
create index lineage_link_child_index on lineage_link (child_id);
create index lineage_link_created_index on lineage_link (created_at);

create table blueprint_version (
  id uuid primary key,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  number integer not null,
  author_id uuid not null references principal(id),
  cause text not null,
  changes jsonb not null,
  plan jsonb not null,
  created_at timestamptz not null default now(),
  unique (blueprint_id, number)
);

create table tool_operation (
  id uuid primary key,
  tool_type text not null,
  principal_id uuid not null references principal(id),
  status text not null check (status in ('active', 'completed', 'cancelled', 'failed', 'expired')),
  step integer not null,
  total_steps integer not null,
  source_ids uuid[] not null default '{}',
  params jsonb not null,
  state jsonb not null default '{}',
  result jsonb null,
  token_hash text null,
  last_activity_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tool_operation_principal_created_index on tool_operation (principal_id, created_at);
create index tool_operation_active_index on tool_operation (last_activity_at) where status = 'active';

-- Execution history (one row per start); the execution area owns the behaviour, trending reads it.
create table execution_run (
  id uuid primary key,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  principal_id uuid not null references principal(id),
  status text not null check (status in ('running', 'completed', 'failed', 'abandoned')),
  total_steps integer not null,
  steps_reached integer not null default 0,
  stage_token_hashes text[] not null,
  notes text null,
  started_at timestamptz not null default now(),
  last_step_at timestamptz null,
  ended_at timestamptz null
);
create index execution_run_blueprint_started_index on execution_run (blueprint_id, started_at);
create index execution_run_started_index on execution_run (started_at);
create index execution_run_principal_index on execution_run (principal_id, started_at);
create index execution_run_running_index on execution_run (started_at) where status = 'running';
`);
  }
}
