import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The GraphQL IDE: GraphiQL, served at `GET /graphql` to browsers from the npm packages' own browser
 * builds (graphiql, react, react-dom, graphql-ws), so it works offline and loads nothing from another
 * host. Subscriptions go over graphql-ws on the same path; the bearer token in GraphiQL's Headers tab is
 * sent both with HTTP requests and as the WebSocket's `connectionParams.authorization`.
 */

const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Asset name -> [file, content type]. Only these are served. */
const assetFiles: Record<string, [() => string, string]> = {
  'react.production.min.js': [() => join(packageDir('react-umd'), 'umd/react.production.min.js'), 'text/javascript; charset=utf-8'],
  'react-dom.production.min.js': [() => join(packageDir('react-dom-umd'), 'umd/react-dom.production.min.js'), 'text/javascript; charset=utf-8'],
  'graphiql.min.js': [() => join(packageDir('graphiql'), 'graphiql.min.js'), 'text/javascript; charset=utf-8'],
  'graphiql.min.css': [() => join(packageDir('graphiql'), 'graphiql.min.css'), 'text/css; charset=utf-8'],
  'graphql-ws.min.js': [() => join(packageDir('graphql-ws'), 'umd/graphql-ws.min.js'), 'text/javascript; charset=utf-8'],
};

const ASSET_PREFIX = '/graphiql/';

const defaultQuery = `# Blueprint Workshop: GraphQL IDE (GraphiQL, served by this server; works offline).
#
# Most fields need a bearer token. Get one:
#   curl -X POST <this server>/api/agent/sessions
# then put it in the Headers tab below:
#   {"authorization": "Bearer bwa_..."}
# The same header authenticates subscriptions (graphql-ws on ws://<this server>/graphql).

query PublicArchitectures {
  architectures(first: 5) {
    totalCount
    edges { node { slug name } }
  }
}
`;

/** Starts GraphiQL: HTTP for queries and mutations, graphql-ws for subscriptions, headers kept in localStorage. */
const initScript = `(function () {
  var url = window.location.origin + '/graphql';
  function headers() {
    try { return JSON.parse(window.localStorage.getItem('graphiql:headers') || '{}') || {}; } catch (e) { return {}; }
  }
  var wsClient = graphqlWs.createClient({
    url: url.replace(/^http/, 'ws'),
    lazy: true,
    connectionParams: function () {
      var h = headers();
      var auth = h.authorization || h.Authorization;
      return auth ? { authorization: auth } : {};
    },
  });
  var fetcher = GraphiQL.createFetcher({ url: url, wsClient: wsClient });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    shouldPersistHeaders: true,
    defaultQuery: ${JSON.stringify(defaultQuery)},
    defaultEditorToolsVisibility: 'headers',
  }));
})();
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Blueprint Workshop GraphQL</title>
    <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
    <link rel="stylesheet" href="${ASSET_PREFIX}graphiql.min.css" />
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL...</div>
    <script src="${ASSET_PREFIX}react.production.min.js"></script>
    <script src="${ASSET_PREFIX}react-dom.production.min.js"></script>
    <script src="${ASSET_PREFIX}graphiql.min.js"></script>
    <script src="${ASSET_PREFIX}graphql-ws.min.js"></script>
    <script src="${ASSET_PREFIX}init.js"></script>
  </body>
</html>
`;

/**
 * The browser may load and connect to this server only (fonts and icons are inline `data:` URLs); the
 * page runs no inline script (init.js is served), and may not be framed.
 */
const CSP =
  "default-src 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** A browser asking for `/graphql` (HTML accepted, no query in the URL) wants the IDE. */
function wantsIde(method: string, url: string, accept: string | undefined): boolean {
  if (method !== 'GET' || !accept?.includes('text/html')) return false;
  const [path, query] = url.split('?');
  return path === '/graphql' && !new URLSearchParams(query ?? '').has('query');
}

export function registerGraphiQL(app: FastifyInstance): void {
  const cache = new Map<string, string>();
  app.addHook('onRequest', async (request, reply) => {
    if (!wantsIde(request.method, request.url, request.headers.accept)) return;
    return reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(page);
  });
  app.get<{ Params: { asset: string } }>(`${ASSET_PREFIX}:asset`, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const { asset } = request.params;
    if (asset === 'init.js') return reply.type('text/javascript; charset=utf-8').send(initScript);
    const entry = assetFiles[asset];
    if (!entry) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `No GraphiQL asset ${JSON.stringify(asset)}` } });
    let text = cache.get(asset);
    if (text === undefined) {
      text = readFileSync(entry[0](), 'utf8');
      cache.set(asset, text);
    }
    return reply.type(entry[1]).header('cache-control', 'public, max-age=86400').send(text);
  });
}
