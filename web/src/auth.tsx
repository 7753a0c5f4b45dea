import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Provider, useQuery } from 'urql';
import { isUnauthenticated, makeClient } from './client';
import { ViewerDocument, type ViewerQuery } from './generated/graphql';

const STORAGE_KEY = 'bw.token';

export type Viewer = NonNullable<ViewerQuery['viewer']>;

interface AuthState {
  token: string | null;
  viewer: Viewer | null;
  /** True until the stored token has been checked against the server. */
  checking: boolean;
  /** Set when the check could not reach the service (5xx, network): the token is kept and `retry` tries again. */
  unavailable: boolean;
  retry(): void;
  signIn(token: string): void;
  signOut(): void;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}

function ViewerCheck({
  attempt,
  onViewer,
  onInvalid,
  onUnavailable,
}: {
  attempt: number;
  onViewer(v: Viewer): void;
  onInvalid(): void;
  onUnavailable(down: boolean): void;
}) {
  const [{ data, error, fetching }, run] = useQuery({ query: ViewerDocument, requestPolicy: 'network-only' });
  useEffect(() => {
    if (attempt > 0) run({ requestPolicy: 'network-only' });
  }, [attempt, run]);
  useEffect(() => {
    if (fetching) return;
    if (data?.viewer) {
      onUnavailable(false);
      onViewer(data.viewer);
    } else if (error) {
      // Only a refused token signs out; a 500, 503 or network failure keeps it and offers a retry.
      if (isUnauthenticated(error)) onInvalid();
      else onUnavailable(true);
    } else if (data && !data.viewer) onInvalid();
  }, [data, error, fetching, onViewer, onInvalid, onUnavailable]);
  return null;
}

/**
 * The bearer token lives in localStorage; every request (HTTP and WebSocket) carries it. Only a token
 * the server refuses with 401 (expired, revoked, signed out elsewhere) is dropped; the person signs in
 * again. Signing out in one tab signs out the others (the `storage` event).
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => localStorage.getItem(STORAGE_KEY));
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const [attempt, setAttempt] = useState(0);

  const signIn = useCallback((t: string) => {
    localStorage.setItem(STORAGE_KEY, t);
    setViewer(null);
    setToken(t);
  }, []);
  const signOut = useCallback(() => {
    localStorage.removeItem(STORAGE_KEY);
    setViewer(null);
    setUnavailable(false);
    setToken(null);
  }, []);
  const retry = useCallback(() => setAttempt((a) => a + 1), []);

  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key !== STORAGE_KEY) return;
      setViewer(null);
      setToken(e.newValue);
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const { client, ws } = useMemo(() => makeClient(token, signOut), [token, signOut]);
  useEffect(() => () => void ws.dispose(), [ws]);

  const state: AuthState = { token, viewer, checking: token !== null && viewer === null, unavailable, retry, signIn, signOut };
  return (
    <Provider value={client}>
      {token && <ViewerCheck key={token} attempt={attempt} onViewer={setViewer} onInvalid={signOut} onUnavailable={setUnavailable} />}
      <AuthContext.Provider value={state}>{children}</AuthContext.Provider>
    </Provider>
  );
}
