import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface Credentials {
  username: string;
  password: string;
  /** `deny` presses Deny on the consent page. */
  decision?: 'allow' | 'deny';
}

/** What the consent page showed and where the browser went after the form was submitted. */
export interface ConsentOutcome {
  pageStatus: number;
  submitStatus: number;
  location: string | null;
  page: string;
}

/**
 * An MCP client's OAuth state, kept in memory, whose "browser" follows the authorization redirect over
 * HTTP: it loads the sign-in page, submits its form with the given credentials and records the redirect
 * back (the authorization code, or an error).
 */
export class TestOAuthClient implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  /** The last consent round trip. */
  consent: ConsentOutcome | undefined;

  constructor(
    private readonly credentials: Credentials,
    private readonly metadata: Partial<OAuthClientMetadata> = {},
    readonly redirectUrl = 'http://127.0.0.1:9/callback',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.metadata,
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }

  /** The authorization code the last redirect carried, or null. */
  get code(): string | null {
    return this.consent?.location ? new URL(this.consent.location).searchParams.get('code') : null;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const pageResponse = await fetch(url, { redirect: 'manual' });
    const page = await pageResponse.text();
    const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
    if (!request) {
      this.consent = { pageStatus: pageResponse.status, submitStatus: 0, location: pageResponse.headers.get('location'), page };
      return;
    }
    const form = new URLSearchParams({
      request,
      username: this.credentials.username,
      password: this.credentials.password,
      decision: this.credentials.decision ?? 'allow',
    });
    const submit = await fetch(new URL('/oauth/consent', url), { method: 'POST', body: form, redirect: 'manual' });
    this.consent = { pageStatus: pageResponse.status, submitStatus: submit.status, location: submit.headers.get('location'), page: await submit.text() };
  }
}
