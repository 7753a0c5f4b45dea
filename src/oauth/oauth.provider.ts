import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  UnsupportedGrantTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { TokenScope } from '../auth/access-token.entity';
import { mintAccountToken } from '../auth/account-token.service';
import { hashToken, liveTokenSql } from '../platform/sql/tokens';
import type { AppDeps } from '../platform/http/request-context';
import { verifyCredentials } from '../auth/account.service';
import { AppError } from '../platform/errors';
import { badStringReason, inputProblem } from '../platform/http/input-gate';
import { createRequestContext } from '../platform/http/request-context';
import { renderConsentPage, renderExpiredPage } from './consent.page';
import { canonicalResource, isOwnResource, mcpResourceOf } from './resource';

/** The fields the consent page posts. */
export interface ConsentForm {
  request?: unknown;
  username?: unknown;
  password?: unknown;
  decision?: unknown;
}

/** What a client may ask for: `read` (read-only tools) or `write` (everything a signed-in user may do). */
export const OAUTH_SCOPES = [TokenScope.READ, TokenScope.WRITE] as const;
/** An unanswered sign-in page stays valid this long. */
const REQUEST_TTL_MS = 30 * 60 * 1000;
/** An authorization code must be exchanged within this long of the user's approval. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Tokens issued to OAuth clients (no refresh tokens: the client signs in again). */
export const OAUTH_TOKEN_TTL_S = 30 * 24 * 60 * 60;

export const newSecret = () => randomBytes(32).toString('base64url');

/** The scope a request may be granted: `write` unless only `read` was asked for. Unknown scopes are refused. */
export function requestedScope(scopes: string[] | undefined): TokenScope {
  const asked = (scopes ?? []).filter(Boolean);
  const unknown = asked.filter((s) => !(OAUTH_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new InvalidScopeError(`Unknown scope ${unknown.join(' ')}; this server grants read or write`);
  return asked.length > 0 && !asked.includes(TokenScope.WRITE) ? TokenScope.READ : TokenScope.WRITE;
}

/** Registered clients, kept in PostgreSQL so that every instance knows them. */
class ClientsStore implements OAuthRegisteredClientsStore {
  constructor(private readonly deps: AppDeps) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    // A NUL cannot be stored nor looked up in PostgreSQL text: no such client, never a 500.
    if (clientId.length > 200 || badStringReason(clientId) !== null) return undefined;
    const rows: Array<{ information: OAuthClientInformationFull }> = await this.deps.orm.em
      .fork()
      .getConnection()
      .execute('select information from oauth_client where client_id = ?', [clientId]);
    return rows[0]?.information;
  }

  async registerClient(client: OAuthClientInformationFull): Promise<OAuthClientInformationFull> {
    // The SDK generated client_id (and a secret for confidential clients) and validated the metadata;
    // strings PostgreSQL (jsonb) cannot hold are the client's error.
    const problem = inputProblem(client, 'client metadata', 16);
    if (problem) throw new InvalidClientMetadataError(`${problem.path} ${problem.message}`);
    await this.deps.orm.em
      .fork()
      .getConnection()
      .execute('insert into oauth_client (client_id, information) values (?, ?::jsonb)', [client.client_id, JSON.stringify(client)]);
    return client;
  }
}

/**
 * The authorization server behind the MCP SDK's `mcpAuthRouter`: the SDK owns the protocol (metadata,
 * registration, parameter checks, PKCE verification, client authentication, error responses); this class
 * owns storage and the user's decision. The tokens it issues are account tokens of the user who signed in
 * (`mintAccountToken`), so they are listed in `GET /api/account/tokens` and revoked like any other.
 */
export class WorkshopOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: ClientsStore;

  constructor(private readonly deps: AppDeps) {
    this.clientsStore = new ClientsStore(deps);
  }

  private connection() {
    return this.deps.orm.em.fork().getConnection();
  }

  /** Stores the pending request and answers the sign-in and consent page; the form posts to `/oauth/consent`. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scope = requestedScope(params.scopes);
    const origin = (res.req as { bwOrigin?: string }).bwOrigin;
    if (params.resource && (!origin || !isOwnResource(params.resource, origin)))
      throw new InvalidTargetError(`This server protects one resource, ${origin ? mcpResourceOf(origin) : 'its /mcp endpoint'}; ask for exactly that URI`);
    const secret = newSecret();
    await this.connection().execute(
      `insert into oauth_authorization (id, client_id, redirect_uri, code_challenge, state, scope, resource, request_hash, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        client.client_id,
        params.redirectUri,
        params.codeChallenge,
        params.state ?? null,
        scope,
        // The grant always records the resource it is for, so the token request can be held to it.
        origin ? mcpResourceOf(origin) : null,
        hashToken(secret),
        new Date(Date.now() + REQUEST_TTL_MS),
      ],
    );
    res
      .status(200)
      .type('html')
      .send(renderConsentPage({ requestSecret: secret, clientName: client.client_name ?? client.client_id, redirectUri: params.redirectUri, scope }));
  }

  /**
   * The person's answer to the consent page. Deny: the client hears `access_denied`. Allow: the username and
   * password are checked as sign-in checks them (same limits, same 401 for either wrong); on success the
   * request becomes a single-use code and the browser goes back to the client. A request is answered once.
   */
  async decide(form: ConsentForm, ip: string): Promise<{ redirect: string } | { status: number; page: string }> {
    const secret = typeof form.request === 'string' ? form.request : '';
    const rows: Array<{
      id: string;
      client_id: string;
      redirect_uri: string;
      state: string | null;
      scope: TokenScope;
      information: OAuthClientInformationFull;
    }> = await this.connection().execute(
      `select a.id, a.client_id, a.redirect_uri, a.state, a.scope, c.information from oauth_authorization a join oauth_client c on c.client_id = a.client_id
        where a.request_hash = ? and a.decided_at is null and a.expires_at > now()`,
      [hashToken(secret)],
    );
    const request = rows[0];
    if (!request) return { status: 400, page: renderExpiredPage() };
    const back = new URL(request.redirect_uri);
    if (request.state !== null) back.searchParams.set('state', request.state);
    if (form.decision !== 'allow') {
      await this.connection().execute('update oauth_authorization set decided_at = now() where id = ? and decided_at is null', [request.id]);
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied access');
      return { redirect: back.href };
    }
    const ctx = await createRequestContext(this.deps, undefined, randomUUID(), ip);
    let user: { userId: string };
    try {
      user = await verifyCredentials(ctx, { username: String(form.username ?? ''), password: String(form.password ?? '') });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const error = err.code === 'RATE_LIMITED' ? err.message : 'Wrong username or password';
      const page = renderConsentPage({
        requestSecret: secret,
        clientName: request.information.client_name ?? request.client_id,
        redirectUri: request.redirect_uri,
        scope: request.scope,
        error,
        username: String(form.username ?? ''),
      });
      return { status: err.status === 429 ? 429 : 401, page };
    }
    const code = newSecret();
    const decided: Array<{ id: string }> = await this.connection().execute(
      `update oauth_authorization set code_hash = ?, principal_id = ?, decided_at = now() where id = ? and decided_at is null returning id`,
      [hashToken(code), user.userId, request.id],
    );
    if (!decided[0]) return { status: 400, page: renderExpiredPage() };
    back.searchParams.set('code', code);
    return { redirect: back.href };
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    const rows: Array<{ code_challenge: string }> = await this.connection().execute(
      `select code_challenge from oauth_authorization
        where code_hash = ? and client_id = ? and used_at is null and decided_at > now() - make_interval(secs => ?)`,
      [hashToken(authorizationCode), client.client_id, CODE_TTL_MS / 1000],
    );
    if (!rows[0]) {
      await this.revokeIfReplayed(authorizationCode, client.client_id);
      throw new InvalidGrantError('The authorization code is unknown, used or expired');
    }
    return rows[0].code_challenge;
  }

  /**
   * OAuth 2.1 (section 4.1.3): a code presented again after it was spent has leaked, so the token issued
   * from it is revoked at once. Committed on its own, before the refusal is answered.
   */
  private async revokeIfReplayed(authorizationCode: string, clientId: string): Promise<void> {
    await this.connection().execute(
      `update access_token set revoked_at = now()
        where revoked_at is null
          and id = (select access_token_id from oauth_authorization where code_hash = ? and client_id = ? and used_at is not null)`,
      [hashToken(authorizationCode), clientId],
    );
  }

  /** One transaction: the code is locked, spent, and a token minted for the user who approved it. */
  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const issued = await this.deps.orm.em.fork().transactional(async (tx): Promise<OAuthTokens | 'replayed'> => {
      const rows: Array<{
        id: string;
        redirect_uri: string;
        scope: TokenScope;
        principal_id: string;
        fresh: boolean;
        used_at: Date | null;
        resource: string | null;
      }> = await tx.execute(
        `select id, redirect_uri, scope, principal_id, used_at, resource, decided_at > now() - make_interval(secs => ?) as fresh
           from oauth_authorization where code_hash = ? and client_id = ? for update`,
        [CODE_TTL_MS / 1000, hashToken(authorizationCode), client.client_id],
      );
      const grant = rows[0];
      if (grant?.used_at) return 'replayed';
      if (!grant || !grant.fresh) throw new InvalidGrantError('The authorization code is unknown, used or expired');
      if (redirectUri !== undefined && redirectUri !== grant.redirect_uri) throw new InvalidGrantError('redirect_uri differs from the authorization request');
      // RFC 8707 2.2: the token request may name the resource again; it must be the one authorized (or ours).
      if (resource !== undefined) {
        const asked = canonicalResource(resource);
        if (asked === null || (grant.resource !== null && asked !== grant.resource))
          throw new InvalidTargetError('resource differs from the authorization request');
      }
      await tx.execute('update oauth_authorization set used_at = now() where id = ?', [grant.id]);
      const expiresAt = new Date(Date.now() + OAUTH_TOKEN_TTL_S * 1000);
      const name = `OAuth: ${client.client_name ?? client.client_id}`.slice(0, 100);
      let token: Awaited<ReturnType<typeof mintAccountToken>>;
      try {
        token = await mintAccountToken(tx, grant.principal_id, { name, scope: grant.scope, expiresAt }, this.deps.config.limits.accountTokensMax);
      } catch (err) {
        // At the account's token cap the code is not spent (the transaction rolls back); the client hears why.
        if (err instanceof AppError && err.code === 'CONFLICT') throw new InvalidGrantError(err.message);
        throw err;
      }
      await tx.execute('insert into oauth_grant (access_token_id, client_id) values (?, ?)', [token.id, client.client_id]);
      await tx.execute('update oauth_authorization set access_token_id = ? where id = ?', [token.id, grant.id]);
      return { access_token: token.token, token_type: 'bearer', expires_in: OAUTH_TOKEN_TTL_S, scope: grant.scope };
    });
    if (issued === 'replayed') {
      await this.revokeIfReplayed(authorizationCode, client.client_id);
      throw new InvalidGrantError('The authorization code is unknown, used or expired');
    }
    return issued;
  }

  async exchangeRefreshToken(): Promise<OAuthTokens> {
    throw new UnsupportedGrantTypeError('This server issues no refresh tokens; authorize again when the access token expires');
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const rows: Array<{ client_id: string | null; scope: string; expires_at: Date | null }> = await this.connection().execute(
      `select g.client_id, t.scope, t.expires_at from access_token t left join oauth_grant g on g.access_token_id = t.id
        where t.token_hash = ? and ${liveTokenSql('t')}`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) throw new InvalidGrantError('The token is unknown, expired or revoked');
    return {
      token,
      clientId: row.client_id ?? '',
      scopes: [row.scope],
      ...(row.expires_at ? { expiresAt: Math.floor(new Date(row.expires_at).getTime() / 1000) } : {}),
    };
  }

  /** RFC 7009: a client revokes a token it was granted; anything else is ignored, as the RFC asks. */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await this.connection().execute(
      `update access_token set revoked_at = now()
        where token_hash = ? and revoked_at is null and id in (select access_token_id from oauth_grant where client_id = ?)`,
      [hashToken(request.token), client.client_id],
    );
  }
}
