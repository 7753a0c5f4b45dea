import 'reflect-metadata';
import { viewerFromToken } from '../auth/auth.service';
import { databaseSchema } from '../db';
import { loadConfig } from '../platform/config';
import { openDatabase } from '../platform/sql/database';
import { startEmbeddedPostgres } from '../platform/sql/embedded-postgres';
import { EventBus } from '../platform/live/events';
import { createRateLimiter } from '../platform/http/rate-limit';
import { seedDemoRegistry } from './seed';

/** `npm run seed`: the demo registry, on DATABASE_URL or the embedded database `npm start` uses. */
async function main(): Promise<number> {
  const config = loadConfig();
  let url = config.databaseUrl;
  const embedded = url ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, port: Number(process.env.EMBEDDED_PG_PORT ?? 54329) });
  if (embedded) {
    const u = new URL(embedded.url);
    u.pathname = '/blueprint_workshop';
    url = u.toString();
  }
  const orm = await openDatabase(url!, databaseSchema, { settings: config.database });
  // Events go to the outbox on each write's transaction; a running server relays them. The seed listens to none.
  const events = new EventBus(url!, (msg, err) => console.error(msg, err));
  // The seed calls services, not routes: no rate limit applies, so an in-memory limiter fills the slot.
  const limiter = createRateLimiter(undefined, '');
  try {
    const started = Date.now();
    const summary = await seedDemoRegistry({ orm, config, events, limiter, resolveViewer: viewerFromToken }, (line) => console.log(line));
    console.log(
      summary.seeded
        ? `Seeded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(summary)}`
        : 'The demo registry is already there: nothing to do.',
    );
    return 0;
  } finally {
    await limiter.close();
    await orm.close();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
