/**
 * The status of one plain `fetch`, its body read to the end: an unread body keeps its socket open after the
 * suite ends, and Jest's worker then cannot exit ("failed to exit gracefully").
 */
export async function statusOf(url: string, init?: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status;
}

export interface RestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** An agent session as tests use it. */
export interface AgentSession {
  token: string;
  id: string;
}

/** A person who signed up, as tests use them. */
export interface SignedInUser {
  token: string;
  id: string;
  username: string;
}

export interface RestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON and oversize bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A small REST client over fetch: JSON in, JSON out, status and headers kept. */
export class RestClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RestOptions = {}): Promise<RestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON; keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string, options?: RestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RestOptions) {
    return this.request<T>('POST', path, options);
  }
  put<T = any>(path: string, options?: RestOptions) {
    return this.request<T>('PUT', path, options);
  }
  patch<T = any>(path: string, options?: RestOptions) {
    return this.request<T>('PATCH', path, options);
  }
  delete<T = any>(path: string, options?: RestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  /** A new agent session: its bearer token and its principal id. */
  async agentSession(name = 'test-agent'): Promise<AgentSession> {
    const res = await this.post('/api/agent/sessions', { body: { name } });
    if (res.status !== 201) throw new Error(`agent session: ${res.status} ${JSON.stringify(res.body)}`);
    return { token: res.body.token as string, id: res.body.session_id as string };
  }

  /** A new person (signed up and signed in): their `bws_` sign-in token, user id and username. */
  async signUp(username = `user-${Math.random().toString(36).slice(2, 10)}`, password = 'correct horse battery'): Promise<SignedInUser> {
    const res = await this.post('/api/auth/signup', { body: { username, password } });
    if (res.status !== 201) throw new Error(`sign-up: ${res.status} ${JSON.stringify(res.body)}`);
    return { token: res.body.token as string, id: res.body.user_id as string, username };
  }

  /** An account token (`bwu_`) of the person signed in with `signInToken`. */
  async accountToken(signInToken: string, scope: 'read' | 'write' = 'write', name = `${scope} token`): Promise<string> {
    const res = await this.post('/api/account/tokens', { token: signInToken, body: { name, scope } });
    if (res.status !== 201) throw new Error(`account token: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  /** A new agent session's bearer token. */
  async agentToken(name = 'test-agent'): Promise<string> {
    return (await this.agentSession(name)).token;
  }
}
