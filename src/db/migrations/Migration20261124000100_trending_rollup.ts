import { Migration } from '@mikro-orm/migrations';

/**
 * Trending without scoring every active blueprint per request (docs/reads.md, "Trending"): each blueprint
 * carries its activity since `trending_horizon.horizon` (stars given, forks made, executions started,
 * and their weighted score, the weights of `src/registry/trending.ts`), and an index walks that order.
 *
 * Triggers keep the counts in the transaction of every write that changes them, however it is made
 * (a star, an unstar, a fork, a run, a cascade of a deleted blueprint, a row backdated in SQL). The
 * trending job moves the horizon up to `now() - 7 days`, subtracting what falls behind it; readers
 * correct the few blueprints with activity between the horizon and their own window start from the raw
 * rows. Writers hold advisory lock 8262001 shared while they read the horizon; the job holds it
 * exclusively, so no event is counted on one side of a moving horizon and subtracted on the other.
 */
export class Migration20261124000100_trending_rollup extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table blueprint
  add column trending_stars integer not null default 0,
  add column trending_forks integer not null default 0,
  add column trending_executions integer not null default 0,
  add column trending_score integer generated always as (trending_stars * 1 + trending_forks * 3 + trending_executions * 2) stored;

create table trending_horizon (
  only_row boolean primary key default true check (only_row),
  horizon timestamptz not null
);
insert into trending_horizon (horizon) values (now() - interval '7 days');

update blueprint b set trending_stars = a.n from (
  select blueprint_id, count(*) as n from star where created_at >= (select horizon from trending_horizon) group by blueprint_id
) a where b.id = a.blueprint_id;
update blueprint b set trending_forks = a.n from (
  select forked_from_id, count(*) as n from blueprint
   where forked_from_id is not null and created_at >= (select horizon from trending_horizon) group by forked_from_id
) a where b.id = a.forked_from_id;
update blueprint b set trending_executions = a.n from (
  select blueprint_id, count(*) as n from execution_run where started_at >= (select horizon from trending_horizon) group by blueprint_id
) a where b.id = a.blueprint_id;

create index blueprint_public_trending_index on blueprint (trending_score desc, stars_count desc, id) where visibility = 'public';

-- The horizon a writer counts against, read under the shared lock (see above).
create function bw_trending_horizon() returns timestamptz language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(8262001);
  return (select horizon from trending_horizon);
end $$;

create function bw_trending_star() returns trigger language plpgsql as $$
declare h timestamptz := bw_trending_horizon();
begin
  if tg_op <> 'INSERT' and old.created_at >= h then
    update blueprint set trending_stars = trending_stars - 1 where id = old.blueprint_id;
  end if;
  if tg_op <> 'DELETE' and new.created_at >= h then
    update blueprint set trending_stars = trending_stars + 1 where id = new.blueprint_id;
  end if;
  return null;
end $$;
create trigger star_trending after insert or delete or update of created_at, blueprint_id on star
  for each row execute function bw_trending_star();

create function bw_trending_execution() returns trigger language plpgsql as $$
declare h timestamptz := bw_trending_horizon();
begin
  if tg_op <> 'INSERT' and old.started_at >= h then
    update blueprint set trending_executions = trending_executions - 1 where id = old.blueprint_id;
  end if;
  if tg_op <> 'DELETE' and new.started_at >= h then
    update blueprint set trending_executions = trending_executions + 1 where id = new.blueprint_id;
  end if;
  return null;
end $$;
create trigger execution_run_trending after insert or delete or update of started_at, blueprint_id on execution_run
  for each row execute function bw_trending_execution();

-- A fork is a blueprint row with forked_from_id; it counts on its parent at its created_at.
create function bw_trending_fork() returns trigger language plpgsql as $$
declare h timestamptz := bw_trending_horizon();
begin
  if tg_op <> 'INSERT' and old.forked_from_id is not null and old.created_at >= h then
    update blueprint set trending_forks = trending_forks - 1 where id = old.forked_from_id;
  end if;
  if tg_op <> 'DELETE' and new.forked_from_id is not null and new.created_at >= h then
    update blueprint set trending_forks = trending_forks + 1 where id = new.forked_from_id;
  end if;
  return null;
end $$;
create trigger blueprint_trending_fork_insert after insert on blueprint
  for each row when (new.forked_from_id is not null) execute function bw_trending_fork();
create trigger blueprint_trending_fork_delete after delete on blueprint
  for each row when (old.forked_from_id is not null) execute function bw_trending_fork();
create trigger blueprint_trending_fork_update after update of forked_from_id, created_at on blueprint
  for each row when (old.forked_from_id is distinct from new.forked_from_id or old.created_at is distinct from new.created_at)
  execute function bw_trending_fork();
`);
  }
}
