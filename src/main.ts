import 'reflect-metadata';
import { startApp } from './app';
import { loadConfig } from './platform/config';

/** `npm start`: serve until SIGTERM/SIGINT, then drain connections and exit 0. */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await startApp(config);
  app.http.log.info(`Blueprint Workshop listening on ${app.url} (GraphQL and WebSocket at /graphql, REST at /api)`);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.http.log.info(`${signal} received: draining connections`);
    app
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error('shutdown failed', err);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error('Blueprint Workshop failed to start:', err);
  process.exit(1);
});
