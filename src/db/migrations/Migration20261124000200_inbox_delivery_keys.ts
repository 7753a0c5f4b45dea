import { Migration } from '@mikro-orm/migrations';

/**
 * Inbox rows without per-row foreign-key checks. A broadcast to 2,000 recipients wrote 2,000 rows and
 * PostgreSQL ran two foreign-key triggers for each: one looked up the broadcast inserted by the same
 * statement, the other locked each recipient's `principal` row (a tuple lock written to the heap and the
 * WAL). Those checks took about 60% of the statement (2,000 rows: 56-60 ms with both, 15-26 ms without,
 * measured on a copy of the bench's tables). What the keys guaranteed is kept another way:
 *
 * - Every row is written by the send's one statement (`sendBroadcast`), which inserts the broadcast and
 *   its rows together and takes its recipients from `blueprint` owners and `blueprint_subscription` rows,
 *   both keyed to `principal`. No other statement writes the two columns.
 * - `on delete cascade` becomes a statement-level trigger on each parent table: deleting broadcasts or
 *   principals deletes their inbox rows, in the same statement, as before.
 * - A principal deleted while a send is choosing recipients: the principal's trigger takes the sends'
 *   advisory lock (`BROADCAST_LOCK`) before it deletes. Either the send holds it first, and the trigger
 *   waits for its commit and then deletes its rows too (each statement of the trigger sees what committed
 *   before it, under READ COMMITTED); or the trigger holds it, and the send waits until the deletion
 *   commits and no longer finds that principal among the subscribers.
 */
export class Migration20261124000200_inbox_delivery_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table inbox_delivery drop constraint inbox_delivery_broadcast_id_fkey;
alter table inbox_delivery drop constraint inbox_delivery_recipient_id_fkey;

create function bw_inbox_forget_broadcasts() returns trigger language plpgsql as $$
begin
  delete from inbox_delivery d using gone where d.broadcast_id = gone.id;
  return null;
end $$;
create trigger broadcast_inbox_cascade after delete on broadcast
  referencing old table as gone for each statement execute function bw_inbox_forget_broadcasts();

create function bw_inbox_forget_recipients() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(7342001); -- BROADCAST_LOCK of src/broadcasts/broadcast.service.ts
  delete from inbox_delivery d using gone where d.recipient_id = gone.id;
  return null;
end $$;
create trigger principal_inbox_cascade after delete on principal
  referencing old table as gone for each statement execute function bw_inbox_forget_recipients();
`);
  }
}
