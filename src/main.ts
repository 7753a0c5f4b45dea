import 'reflect-metadata';
import { startApp, type RunningApp } from './app';
import { loadConfig } from './platform/config';

function drainAndExit(app: RunningApp, signal: string): void {
  app.http.log.info(`${signal} received: draining connections`);
  app
    .close()
    .then(() => process.exit(0))
    .catch((err) => {
      console.error('shutdown failed', err);
      process.exit(1);
    });
}

/** `npm start`: serve until SIGTERM/SIGINT, then drain connections and exit 0. */
async function main(): Promise<void> {
  const config = loadConfig();
  let app: RunningApp | undefined;
  let signalled: string | undefined;
  // Listen before starting: a signal during startup (initdb can take a while) must still stop the embedded
  // database cleanly instead of killing node and orphaning postgres.
  const onSignal = (signal: string) => {
    if (signalled) return;
    signalled = signal;
    if (app) drainAndExit(app, signal);
    else console.log(`${signal} received while starting: stopping once started`);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  app = await startApp(config);
  const ws = app.url.replace(/^http/, 'ws');
  app.http.log.info(
    `Blueprint Workshop listening on ${app.url}\n` +
      [
        `  Web console    ${app.url}/`,
        `  GraphQL        POST ${app.url}/graphql   (GraphiQL IDE: open ${app.url}/graphql in a browser)`,
        `  Subscriptions  ${ws}/graphql   (graphql-ws)`,
        `  REST           ${app.url}/api/...`,
        `  MCP            POST ${app.url}/mcp   (OAuth 2.1 for MCP clients: ${app.url}/.well-known/oauth-authorization-server)`,
        `  Health         ${app.url}/healthz`,
        `  Metrics        ${app.url}/metrics   (Prometheus)`,
        `  API docs       ${app.url}/docs   (OpenAPI: ${app.url}/openapi.json)`,
      ].join('\n'),
  );
  if (signalled) drainAndExit(app, signalled);
}

main().catch((err) => {
  console.error('Blueprint Workshop failed to start:', err);
  process.exit(1);
});
