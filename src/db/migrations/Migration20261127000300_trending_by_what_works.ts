import { Migration } from '@mikro-orm/migrations';

/**
 * Trending by what works (docs/decisions.md; docs/reads.md, "Trending"). Within the window a blueprint
 * scores 1 per distinct principal who starred it, 3 per distinct principal who forked it and 5 per
 * distinct principal with a successful run (one that reached its last step); its owner and, for a team
 * blueprint, the team's members never count.
 *
 * `trending_signal` holds one row per (blueprint, kind, principal) that counts, at the time of that
 * principal's latest qualifying event: "had one inside the window" is "latest one inside the window", for
 * any window. Triggers on star, blueprint (forks) and execution_run refresh a principal's row in the
 * transaction of the write; a trigger on trending_signal keeps the blueprint's maintained counts (rows at or
 * after `trending_horizon.horizon`) as migration 20261124000100 did for raw rows, so the horizon job and the
 * readers' correction work unchanged over this one table. Who counts is decided when the row is refreshed
 * (an ownership or membership change applies from the principal's next event).
 *
 * Also: runs that an agent reported `completed` before reaching their last step were never successful;
 * they become `abandoned`, and the blueprint counters are recounted from the runs.
 */
export class Migration20261127000300_trending_by_what_works extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
with fixed as (
  update execution_run set status = 'abandoned' where status = 'completed' and steps_reached < total_steps returning blueprint_id
)
update blueprint b set executions_completed = b.executions_completed - f.n, executions_abandoned = b.executions_abandoned + f.n
  from (select blueprint_id, count(*) as n from fixed group by blueprint_id) f
 where b.id = f.blueprint_id;

drop trigger star_trending on star;
drop trigger execution_run_trending on execution_run;
drop trigger blueprint_trending_fork_insert on blueprint;
drop trigger blueprint_trending_fork_delete on blueprint;
drop trigger blueprint_trending_fork_update on blueprint;
drop function bw_trending_star();
drop function bw_trending_execution();
drop function bw_trending_fork();

create table trending_signal (
  blueprint_id uuid not null references blueprint(id) on delete cascade,
  kind text not null check (kind in ('star', 'fork', 'run')),
  principal_id uuid not null references principal(id) on delete cascade,
  at timestamptz not null,
  primary key (blueprint_id, kind, principal_id)
);
create index trending_signal_at_index on trending_signal (at);

-- The latest qualifying event of principal p on blueprint bp of one kind, or null (none, or p never counts).
create function bw_trending_latest(bp uuid, k text, p uuid) returns timestamptz language plpgsql stable as $$
declare owner uuid; team uuid;
begin
  select owner_id, team_id into owner, team from blueprint where id = bp;
  if not found or owner = p then return null; end if;
  if team is not null and exists (select 1 from team_member m where m.team_id = team and m.principal_id = p) then return null; end if;
  if k = 'star' then
    return (select created_at from star where blueprint_id = bp and principal_id = p);
  elsif k = 'fork' then
    return (select max(created_at) from blueprint where forked_from_id = bp and owner_id = p);
  else
    return (select max(ended_at) from execution_run
             where blueprint_id = bp and principal_id = p and status = 'completed' and steps_reached = total_steps);
  end if;
end $$;

create function bw_trending_refresh(bp uuid, k text, p uuid) returns void language plpgsql as $$
declare latest timestamptz := bw_trending_latest(bp, k, p);
begin
  if latest is null then
    delete from trending_signal where blueprint_id = bp and kind = k and principal_id = p;
  else
    insert into trending_signal (blueprint_id, kind, principal_id, at) values (bp, k, p, latest)
      on conflict (blueprint_id, kind, principal_id) do update set at = excluded.at where trending_signal.at is distinct from excluded.at;
  end if;
end $$;

insert into trending_signal (blueprint_id, kind, principal_id, at)
select s.blueprint_id, 'star', s.principal_id, s.created_at from star s;
insert into trending_signal (blueprint_id, kind, principal_id, at)
select forked_from_id, 'fork', owner_id, max(created_at) from blueprint where forked_from_id is not null group by forked_from_id, owner_id;
insert into trending_signal (blueprint_id, kind, principal_id, at)
select blueprint_id, 'run', principal_id, max(ended_at) from execution_run
 where status = 'completed' and steps_reached = total_steps and ended_at is not null group by blueprint_id, principal_id;
delete from trending_signal t using blueprint b
 where b.id = t.blueprint_id
   and (b.owner_id = t.principal_id
        or (b.team_id is not null and exists (select 1 from team_member m where m.team_id = b.team_id and m.principal_id = t.principal_id)));

drop index blueprint_public_trending_index;
alter table blueprint drop column trending_score;
update blueprint set trending_stars = 0, trending_forks = 0, trending_executions = 0
 where trending_stars <> 0 or trending_forks <> 0 or trending_executions <> 0;
update blueprint b set trending_stars = a.stars, trending_forks = a.forks, trending_executions = a.runs from (
  select blueprint_id, count(*) filter (where kind = 'star') as stars, count(*) filter (where kind = 'fork') as forks,
         count(*) filter (where kind = 'run') as runs
    from trending_signal where at >= (select horizon from trending_horizon) group by blueprint_id
) a where b.id = a.blueprint_id;
alter table blueprint add column trending_score integer generated always as (trending_stars * 1 + trending_forks * 3 + trending_executions * 5) stored;
create index blueprint_public_trending_index on blueprint (trending_score desc, trending_executions desc, stars_count desc, created_at desc, id)
  where visibility = 'public';

-- The maintained counts follow the signal rows at or after the horizon.
create function bw_trending_signal() returns trigger language plpgsql as $$
declare h timestamptz := bw_trending_horizon();
begin
  if tg_op <> 'INSERT' and old.at >= h then
    update blueprint set trending_stars = trending_stars - (old.kind = 'star')::int, trending_forks = trending_forks - (old.kind = 'fork')::int,
                         trending_executions = trending_executions - (old.kind = 'run')::int
     where id = old.blueprint_id;
  end if;
  if tg_op <> 'DELETE' and new.at >= h then
    update blueprint set trending_stars = trending_stars + (new.kind = 'star')::int, trending_forks = trending_forks + (new.kind = 'fork')::int,
                         trending_executions = trending_executions + (new.kind = 'run')::int
     where id = new.blueprint_id;
  end if;
  return null;
end $$;
create trigger trending_signal_counts after insert or delete or update on trending_signal
  for each row execute function bw_trending_signal();

create function bw_trending_star() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then perform bw_trending_refresh(old.blueprint_id, 'star', old.principal_id); end if;
  if tg_op <> 'DELETE' then perform bw_trending_refresh(new.blueprint_id, 'star', new.principal_id); end if;
  return null;
end $$;
create trigger star_trending after insert or delete or update of created_at, blueprint_id, principal_id on star
  for each row execute function bw_trending_star();

create function bw_trending_fork() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' and old.forked_from_id is not null then perform bw_trending_refresh(old.forked_from_id, 'fork', old.owner_id); end if;
  if tg_op <> 'DELETE' and new.forked_from_id is not null then perform bw_trending_refresh(new.forked_from_id, 'fork', new.owner_id); end if;
  return null;
end $$;
create trigger blueprint_trending_fork_insert after insert on blueprint
  for each row when (new.forked_from_id is not null) execute function bw_trending_fork();
create trigger blueprint_trending_fork_delete after delete on blueprint
  for each row when (old.forked_from_id is not null) execute function bw_trending_fork();
create trigger blueprint_trending_fork_update after update of forked_from_id, created_at, owner_id on blueprint
  for each row when (old.forked_from_id is distinct from new.forked_from_id or old.created_at is distinct from new.created_at
                     or old.owner_id is distinct from new.owner_id)
  execute function bw_trending_fork();

-- A run counts once it is completed by its last step (and stops counting if it is deleted or changed).
create function bw_trending_run() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then perform bw_trending_refresh(old.blueprint_id, 'run', old.principal_id); end if;
  if tg_op <> 'DELETE' then perform bw_trending_refresh(new.blueprint_id, 'run', new.principal_id); end if;
  return null;
end $$;
create trigger execution_run_trending_insert after insert on execution_run
  for each row when (new.status = 'completed') execute function bw_trending_run();
create trigger execution_run_trending_delete after delete on execution_run
  for each row when (old.status = 'completed') execute function bw_trending_run();
create trigger execution_run_trending_update after update of status, steps_reached, total_steps, ended_at, blueprint_id, principal_id on execution_run
  for each row when (old.status = 'completed' or new.status = 'completed') execute function bw_trending_run();
`);
  }
}
