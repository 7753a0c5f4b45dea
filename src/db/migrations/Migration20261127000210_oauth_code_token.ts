import { Migration } from '@mikro-orm/migrations';

/**
 * The token an authorization code was exchanged for, so that a replayed code revokes it (OAuth 2.1
 * section 4.1.3: a code used twice means it leaked; the tokens issued from it are revoked).
 */
export class Migration20261127000210_oauth_code_token extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table oauth_authorization add column access_token_id uuid references access_token(id) on delete set null;`);
  }
}
