import { Migration } from '@mikro-orm/migrations';

/**
 * Proposals (docs/proposals.md): a descendant's changes offered to an ancestor, numbered per target.
 * `base_plan` is the merge base chosen when the proposal opened (the target's snapshot at the fork point,
 * or the source plan an earlier proposal from the same source merged); changes and conflicts are computed
 * from it against the current heads on every read, so nothing derived is stored. `merged_source_plan` is
 * the source plan a merge took in: the base of the next proposal from that source.
 */
export class Migration20261127000400_proposals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table proposal (
  id uuid primary key,
  target_id uuid not null references blueprint(id) on delete cascade,
  number integer not null check (number > 0),
  source_id uuid not null references blueprint(id) on delete cascade,
  author_id uuid not null references principal(id) on delete cascade,
  title text not null,
  body text not null default '',
  state text not null default 'open' check (state in ('open', 'merged', 'closed')),
  base_version integer,
  base_plan jsonb not null,
  comment_count integer not null default 0,
  merged_at timestamptz,
  merged_by_id uuid references principal(id) on delete set null,
  merge_version integer,
  merged_source_plan jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint proposal_target_number_unique unique (target_id, number)
);
create index proposal_target_state_index on proposal (target_id, state, number desc);
create index proposal_source_index on proposal (source_id);

create table proposal_comment (
  id uuid primary key,
  proposal_id uuid not null references proposal(id) on delete cascade,
  author_id uuid not null references principal(id) on delete cascade,
  body text not null,
  module_key text,
  step_key text,
  created_at timestamptz not null default now()
);
create index proposal_comment_proposal_index on proposal_comment (proposal_id, created_at, id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists proposal_comment; drop table if exists proposal;');
  }
}
