import { Migration } from '@mikro-orm/migrations';

/**
 * Fork counts are public figures, so they count public forks only: a private fork of
 * a public blueprint showed as `forks_count: 1` to a stranger who could not see it in `/forks` or lineage.
 * `forks_count` and the trending rollup's `trending_forks` are recomputed, and the rollup's trigger now
 * counts a fork while it is public and follows its visibility changes. (The services keep `forks_count`.)
 */
export class Migration20261127000200_public_fork_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
update blueprint b set forks_count = coalesce((select count(*) from blueprint f where f.forked_from_id = b.id and f.visibility = 'public'), 0);

create or replace function bw_trending_fork() returns trigger language plpgsql as $$
declare h timestamptz := bw_trending_horizon();
begin
  if tg_op <> 'INSERT' and old.forked_from_id is not null and old.visibility = 'public' and old.created_at >= h then
    update blueprint set trending_forks = trending_forks - 1 where id = old.forked_from_id;
  end if;
  if tg_op <> 'DELETE' and new.forked_from_id is not null and new.visibility = 'public' and new.created_at >= h then
    update blueprint set trending_forks = trending_forks + 1 where id = new.forked_from_id;
  end if;
  return null;
end $$;
drop trigger blueprint_trending_fork_update on blueprint;
create trigger blueprint_trending_fork_update after update of forked_from_id, created_at, visibility on blueprint
  for each row when (old.forked_from_id is distinct from new.forked_from_id or old.created_at is distinct from new.created_at
                     or old.visibility is distinct from new.visibility)
  execute function bw_trending_fork();

update blueprint b set trending_forks = coalesce((
  select count(*) from blueprint f
   where f.forked_from_id = b.id and f.visibility = 'public' and f.created_at >= (select horizon from trending_horizon)), 0);
`);
  }
}
