import { Migration } from '@mikro-orm/migrations';

/**
 * OAuth 2.1 for MCP clients: dynamically registered clients, authorization requests (a pending sign-in,
 * then a single-use code bound to a PKCE challenge), and which access tokens were granted to which client
 * (the tokens themselves are ordinary `access_token` rows of the signed-in user, so every check, listing
 * and revocation that applies to a user's tokens applies to them).
 */
export class Migration20261123000500_oauth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table oauth_client (
  client_id text primary key,
  -- The registration as the client sent it plus what the server assigned (RFC 7591), as the SDK reads it.
  information jsonb not null,
  created_at timestamptz not null default now()
);

create table oauth_authorization (
  id uuid primary key,
  client_id text not null references oauth_client(client_id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  state text,
  scope text not null,
  resource text,
  -- SHA-256 of the secret the sign-in form carries; the request is answered once.
  request_hash text not null unique,
  -- Set when the user approves: SHA-256 of the authorization code, and who signed in.
  code_hash text unique,
  principal_id uuid references principal(id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  decided_at timestamptz,
  used_at timestamptz
);
create index oauth_authorization_expires_index on oauth_authorization (expires_at);

create table oauth_grant (
  access_token_id uuid primary key references access_token(id) on delete cascade,
  client_id text not null references oauth_client(client_id) on delete cascade,
  created_at timestamptz not null default now()
);
create index oauth_grant_client_index on oauth_grant (client_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table oauth_grant; drop table oauth_authorization; drop table oauth_client;');
  }
}
