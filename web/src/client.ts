import { Client, CombinedError, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';

/** True when the server refused the bearer token (HTTP 401 or UNAUTHENTICATED): the only reason to sign out. */
export function isUnauthenticated(error: CombinedError | undefined | null): boolean {
  if (!error) return false;
  const status = (error.response as { status?: number } | undefined)?.status;
  if (status === 401) return true;
  return error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
}

/**
 * One urql client per bearer token: HTTP for queries and mutations, graphql-ws on the same `/graphql`
 * path for subscriptions, the token in both (header, and `connectionParams.authorization`). A 401 on any
 * request calls `onUnauthenticated` (the token was revoked or expired); a 5xx or network failure does not.
 */
export function makeClient(token: string | null, onUnauthenticated: () => void = () => undefined): { client: Client; ws: WsClient } {
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const ws = createWsClient({
    url: wsUrl,
    lazy: true,
    retryAttempts: 5,
    connectionParams: () => (token ? { authorization: `Bearer ${token}` } : {}),
  });
  const client = new Client({
    url: '/graphql',
    // POST always: Apollo refuses a GET without a preflight-forcing header (CSRF prevention).
    preferGetMethod: false,
    exchanges: [
      cacheExchange,
      mapExchange({
        onError(error) {
          // A sign-in attempt with a wrong password is UNAUTHENTICATED too, but then there is no token to drop.
          if (token && isUnauthenticated(error)) onUnauthenticated();
        },
      }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
    fetchOptions: (): RequestInit => ({ headers: token ? { authorization: `Bearer ${token}` } : ({} as Record<string, string>) }),
  });
  return { client, ws };
}

export { errorText, isUnavailable } from './errors';
