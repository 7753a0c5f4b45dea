import { Migration } from '@mikro-orm/migrations';

/**
 * A token that stops working is an event (docs/scale.md, "Tokens on live connections"). Live
 * subscriptions used to re-read every listener's token for every event they received (one statement per
 * event and instance); now each instance remembers which tokens it found valid, and forgets one when this
 * event says it changed. A trigger writes it, so no way of revoking can forget to: a revocation (sign-out,
 * `DELETE` of a token or an agent session, a claim, OAuth revocation, an operator's SQL), a changed expiry,
 * a deleted token (a principal deleted with its tokens). The row is an outbox row like every other event,
 * written in the revoking transaction, so instances hear of it in commit order, before any event that
 * committed after it. `last_used_at` updates (once a minute per used token) do not fire it.
 */
export class Migration20261128000100_token_revocation_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function access_token_changed_event() returns trigger language plpgsql as $$
begin
  insert into event_outbox (topic, payload) values ('live.token-changed', jsonb_build_object('tokenHash', old.token_hash));
  return null;
end $$;
create trigger access_token_changed after update on access_token for each row
  when ((old.revoked_at, old.expires_at, old.token_hash) is distinct from (new.revoked_at, new.expires_at, new.token_hash))
  execute function access_token_changed_event();
create trigger access_token_deleted after delete on access_token for each row
  execute function access_token_changed_event();
`);
  }
}
