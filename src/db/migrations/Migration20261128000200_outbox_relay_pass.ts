import { Migration } from '@mikro-orm/migrations';

/**
 * One relay pass of the LISTEN/NOTIFY backplane as one statement (docs/scale.md): take the relay's lock or
 * answer -1 (another pass holds it), stamp the oldest unsent outbox rows sent (and every unsent token
 * change, however deep the backlog: no event may go out before a revocation it followed), and NOTIFY them
 * in publish order (token changes first, then by id; src/platform/live/outbox.ts, `publishOrder`) as JSON
 * arrays of at most `payload_max` bytes (one event is never split). It answers how many rows it published.
 * Called outside a transaction, it is one: the lock is released and the notifications are sent at its
 * commit, and a failure publishes nothing and stamps nothing. Its commit does not wait for the WAL to
 * reach the disk (a lost stamp means one more publish, which instances drop by id). The relay used four
 * round trips for this (begin with the lock, the stamping, the NOTIFY, the commit), the largest share of
 * what events cost the writing instance.
 *
 * The outbox is a queue: every row is inserted, stamped and later deleted, and each relay pass walks the
 * partial index of unsent rows, dead entries included, until a vacuum removes them. Autovacuum's defaults
 * wait for a fifth of a table to be dead; for this table it runs after 1,000 dead or inserted rows.
 */
export class Migration20261128000200_outbox_relay_pass extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function event_outbox_relay_notify(lock_key bigint, batch int, channel text, payload_max int) returns int language plpgsql as $$
declare
  event record;
  chunk text := '';
  published int := 0;
begin
  if not pg_try_advisory_xact_lock(lock_key) then
    return -1;
  end if;
  -- The stamps need not wait for the disk: a crash that loses them only makes the next pass publish
  -- those rows again, and every instance drops an outbox id it has already dispatched.
  perform set_config('synchronous_commit', 'off', true);
  for event in
    with claimed as (
      update event_outbox set sent_at = now()
       where id in (select id from event_outbox where sent_at is null and topic = 'live.token-changed'
                    union (select id from event_outbox where sent_at is null order by id limit batch))
      returning id, topic, payload, created_at
    )
    select json_build_object('id', id::text, 'topic', topic, 'payload', payload, 'at', (extract(epoch from created_at) * 1000)::float8)::text as json
      from claimed
     order by (topic = 'live.token-changed') desc, id
  loop
    if chunk <> '' and octet_length(chunk) + octet_length(event.json) + 3 > payload_max then
      perform pg_notify(channel, '[' || chunk || ']');
      chunk := '';
    end if;
    chunk := case when chunk = '' then event.json else chunk || ',' || event.json end;
    published := published + 1;
  end loop;
  if chunk <> '' then
    perform pg_notify(channel, '[' || chunk || ']');
  end if;
  return published;
end $$;
alter table event_outbox set (
  autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000
);
`);
  }
}
