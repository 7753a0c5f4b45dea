import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Provider, useQuery } from 'urql';
import { makeClient } from './client';
import { ViewerDocument, type ViewerQuery } from './generated/graphql';

const STORAGE_KEY = 'bw.token';

export type Viewer = NonNullable<ViewerQuery['viewer']>;

interface AuthState {
  token: string | null;
  viewer: Viewer | null;
  /** True until the stored token has been checked against the server. */
  checking: boolean;
  signIn(token: string): void;
  signOut(): void;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}

function ViewerCheck({ token, onViewer, onInvalid }: { token: string; onViewer(v: Viewer): void; onInvalid(): void }) {
  const [{ data, error }] = useQuery({ query: ViewerDocument, requestPolicy: 'network-only' });
  useEffect(() => {
    if (data?.viewer) onViewer(data.viewer);
    else if (data && !data.viewer) onInvalid();
    else if (error) onInvalid();
  }, [data, error, token, onViewer, onInvalid]);
  return null;
}

/**
 * The bearer token lives in localStorage; every request (HTTP and WebSocket) carries it. A token the
 * server no longer accepts (expired, revoked, signed out elsewhere) is dropped and the person signs in again.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => localStorage.getItem(STORAGE_KEY));
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const { client, ws } = useMemo(() => makeClient(token), [token]);
  useEffect(() => () => void ws.dispose(), [ws]);

  const signIn = useCallback((t: string) => {
    localStorage.setItem(STORAGE_KEY, t);
    setViewer(null);
    setToken(t);
  }, []);
  const signOut = useCallback(() => {
    localStorage.removeItem(STORAGE_KEY);
    setViewer(null);
    setToken(null);
  }, []);

  const state: AuthState = { token, viewer, checking: token !== null && viewer === null, signIn, signOut };
  return (
    <Provider value={client}>
      {token && <ViewerCheck key={token} token={token} onViewer={setViewer} onInvalid={signOut} />}
      <AuthContext.Provider value={state}>{children}</AuthContext.Provider>
    </Provider>
  );
}
