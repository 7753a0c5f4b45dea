import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Principal } from './principal.entity';

export enum AccessTokenKind {
  /** Minted by a user on the MCP setup page (here: `npm run admin -- create-user`). */
  MCP = 'mcp',
  /** Issued by `POST /api/agent/sessions`. */
  AGENT_SESSION = 'agent_session',
}

/** A bearer token. Only its SHA-256 is stored; the token itself is shown once, when it is issued. */
@Entity({ tableName: 'access_token' })
export class AccessToken {
  [OptionalProps]?: 'id' | 'createdAt' | 'expiresAt' | 'revokedAt';

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

  constructor(principal: Ref<Principal>, kind: AccessTokenKind, tokenHash: string, expiresAt: Date | null) {
    this.principal = principal;
    this.kind = kind;
    this.tokenHash = tokenHash;
    this.expiresAt = expiresAt;
  }
}
