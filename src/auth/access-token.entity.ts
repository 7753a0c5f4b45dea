import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Principal } from './principal.entity';

export enum AccessTokenKind {
  /** Minted by a user on the MCP setup page (`POST /api/account/tokens`) or by an operator (`npm run admin`). */
  MCP = 'mcp',
  /** Issued by `POST /api/agent/sessions`. */
  AGENT_SESSION = 'agent_session',
  /** Issued by sign-up and sign-in (`bws_`, 14 days); `DELETE /api/auth/session` revokes it. */
  SIGN_IN = 'sign_in',
}

/** What a token may do: `read` tokens are refused (403) on every write, centrally (platform/graphql/access-policy.ts). */
export enum TokenScope {
  READ = 'read',
  WRITE = 'write',
}

/** A bearer token. Only its SHA-256 is stored; the token itself is shown once, when it is issued. */
@Entity({ tableName: 'access_token' })
export class AccessToken {
  [OptionalProps]?: 'id' | 'createdAt' | 'expiresAt' | 'revokedAt' | 'name' | 'scope' | 'prefix' | 'lastUsedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Principal, { ref: true, deleteRule: 'cascade' })
  principal: Ref<Principal>;

  @Enum({ items: () => AccessTokenKind, columnType: 'text' })
  kind: AccessTokenKind;

  @Property({ type: 'text', unique: true })
  tokenHash: string;

  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  /** The label its owner gave it (account tokens only). */
  @Property({ type: 'text', nullable: true })
  name: string | null = null;

  @Enum({ items: () => TokenScope, columnType: 'text' })
  scope: TokenScope = TokenScope.WRITE;

  /** The first characters of the token, shown in lists so its owner can tell tokens apart. */
  @Property({ type: 'text', nullable: true })
  prefix: string | null = null;

  /** Updated at most once a minute per token (the lookup that authenticates a request does it). */
  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  constructor(principal: Ref<Principal>, kind: AccessTokenKind, tokenHash: string, expiresAt: Date | null) {
    this.principal = principal;
    this.kind = kind;
    this.tokenHash = tokenHash;
    this.expiresAt = expiresAt;
  }
}
