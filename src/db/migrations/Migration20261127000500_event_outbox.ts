import { Migration } from '@mikro-orm/migrations';

/**
 * The transactional outbox (docs/scale.md). Every event is one row, inserted by the write that
 * causes it in the write's own transaction; a relay (src/platform/live/outbox.ts) publishes committed rows and
 * stamps `sent_at`. The partial index keeps the relay's "what is unsent, oldest first" read small however
 * many sent rows wait to be pruned; the second serves the pruning by age.
 */
export class Migration20261127000500_event_outbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table event_outbox (
  id bigserial primary key,
  topic text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz null
);
create index event_outbox_unsent on event_outbox (id) where sent_at is null;
create index event_outbox_sent_at on event_outbox (sent_at) where sent_at is not null;
`);
  }
}
