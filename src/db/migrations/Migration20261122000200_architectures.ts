import { Migration } from '@mikro-orm/migrations';

/** Architectures: diagrams whose nodes are blueprints, joined by typed edges (lineage edges are computed, never stored). */
export class Migration20261122000200_architectures extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table architecture (
  id uuid primary key,
  slug text not null unique,
  name text not null,
  description text not null default '',
  visibility text not null check (visibility in ('public', 'private')),
  owner_id uuid not null references principal(id),
  team_id uuid null references team(id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index architecture_owner_id_index on architecture (owner_id);
create index architecture_team_id_index on architecture (team_id) where team_id is not null;
create index architecture_public_created_index on architecture (created_at desc, id) where visibility = 'public';

create table architecture_node (
  id uuid primary key,
  architecture_id uuid not null references architecture(id) on delete cascade,
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  position_x double precision not null,
  position_y double precision not null,
  created_at timestamptz not null default now(),
  -- A blueprint appears once per architecture, so computed lineage edges are unambiguous.
  unique (architecture_id, blueprint_id)
);
create index architecture_node_order_index on architecture_node (architecture_id, created_at, id);
create index architecture_node_blueprint_index on architecture_node (blueprint_id);

-- Only the manual edge types are stored; lineage_fork / lineage_breed are computed from lineage_link on read.
create table architecture_edge (
  id uuid primary key,
  architecture_id uuid not null references architecture(id) on delete cascade,
  source_node_id uuid not null references architecture_node(id) on delete cascade,
  target_node_id uuid not null references architecture_node(id) on delete cascade,
  edge_type text not null check (edge_type in ('api_call', 'event', 'shared_db', 'auth', 'custom')),
  label text null,
  created_at timestamptz not null default now(),
  check (source_node_id <> target_node_id),
  check (edge_type <> 'custom' or (label is not null and btrim(label) <> ''))
);
create index architecture_edge_order_index on architecture_edge (architecture_id, created_at, id);
create index architecture_edge_source_index on architecture_edge (source_node_id);
create index architecture_edge_target_index on architecture_edge (target_node_id);
create unique index architecture_edge_unique_index on architecture_edge (source_node_id, target_node_id, edge_type, coalesce(label, ''));
`);
  }
}
