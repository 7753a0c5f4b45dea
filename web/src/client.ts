import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';

/**
 * One urql client per bearer token: HTTP for queries and mutations, graphql-ws on the same `/graphql`
 * path for subscriptions, the token in both (header, and `connectionParams.authorization`).
 */
export function makeClient(token: string | null): { client: Client; ws: WsClient } {
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

/** The first GraphQL error's message, or the network error's, for display. */
export function errorText(error: { graphQLErrors?: { message: string }[]; networkError?: Error; message: string } | undefined | null): string | null {
  if (!error) return null;
  return error.graphQLErrors?.[0]?.message ?? error.networkError?.message ?? error.message;
}
